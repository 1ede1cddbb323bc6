import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { redactCredentials } from '../../src/errors.js';
import { clientSafeMessage, MAX_CLIENT_MESSAGE, MAX_ECHOED_VALUE } from '../../src/graphql/clientMessage.js';
import { eventually } from '../helpers/eventually.js';
import { startLoggedServer, type LoggedServer } from '../helpers/loggedServer.js';

const SECRET = 'hunter2-Pa55word';
const IMPORT = 'mutation($input: ImportUrlInput!) { importUrl(input: $input) { job { id } } }';

interface ErrorBody {
  errors?: { message: string; extensions?: { code?: string } }[];
}

describe("Apollo's and graphql-js's request errors repeat no credentials and no huge values", () => {
  let t: LoggedServer;
  beforeAll(async () => {
    t = await startLoggedServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = async (
    query: string,
    variables: Record<string, unknown>,
  ): Promise<{ status: number; text: string; body: ErrorBody }> => {
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) as ErrorBody };
  };

  it('hides the password of a URL in a wrongly shaped variable, and still names the variable and the problem', async () => {
    const res = await post(IMPORT, { input: { url: `https://alice:${SECRET}@docs.example.com/guide`, bogus: 1 } });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain(SECRET);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors?.[0]?.message).toBe(
      // Suggestions are shown to this local keyless caller (an admin, who may read the schema anyway).
      'Variable "$input" got invalid value { url: "https://***@docs.example.com/guide", bogus: 1 }; Field "bogus" is not defined by type "ImportUrlInput". Did you mean "tags"?',
    );

    const wrongType = await post(IMPORT, { input: { url: [`http://bob:${SECRET}@10.0.0.1:8080/x`] } });
    expect(wrongType.text).not.toContain(SECRET);
    expect(wrongType.body.errors?.[0]?.message).toMatch(
      /^Variable "\$input" got invalid value \["http:\/\/\*\*\*@10\.0\.0\.1:8080\/x"\] at "input\.url"; String cannot represent a non string value/,
    );
  });

  it('cuts a 200,000-character value to a short message that still names the variable and what was wrong', async () => {
    const huge = `http://carol:${SECRET}@example.com/${'z'.repeat(200_000)}`;
    const res = await post('query($n: Int) { documents(first: $n) { totalCount } }', { n: huge });
    const message = res.body.errors?.[0]?.message ?? '';
    expect(res.text).not.toContain(SECRET);
    expect(message.length).toBeLessThanOrEqual(MAX_CLIENT_MESSAGE);
    expect(message).toMatch(
      new RegExp(
        `^Variable "\\$n" got invalid value "http://\\*\\*\\*@example\\.com/z{${MAX_ECHOED_VALUE - 24}}…" \\(\\d+ characters\\); Int cannot represent non-integer value: "http`,
      ),
    );

    // The same value written into the query itself (a validation error, not a variable).
    const literal = await post(`query { documents(first: ${JSON.stringify(huge)}) { totalCount } }`, {});
    expect(literal.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(literal.text).not.toContain(SECRET);
    expect(literal.body.errors?.[0]?.message.length).toBeLessThanOrEqual(MAX_CLIENT_MESSAGE);
    expect(literal.body.errors?.[0]?.message).toMatch(
      /^Int cannot represent non-integer value: "http:\/\/\*\*\*@example\.com\/z+…" \(\d+ characters\)$/,
    );
  });

  it('caps a message listing a huge object and keeps its reason, which comes last', async () => {
    const input: Record<string, unknown> = { url: 'https://example.com/' };
    for (let i = 0; i < 5000; i++) input[`k${i}`] = i;
    const res = await post(IMPORT, { input });
    const message = res.body.errors?.[0]?.message ?? '';
    expect(message.length).toBeLessThanOrEqual(MAX_CLIENT_MESSAGE);
    expect(message).toMatch(/^Variable "\$input" got invalid value \{ url: "https:\/\/example\.com\/", k0: 0, k1: 1/);
    expect(message).toMatch(
      /; Field "k0" is not defined by type "ImportUrlInput"\.( \(suggestions hidden; see schema\.graphql\))?$/,
    );
  });

  it('logs no password: neither a POST body error nor the variables of a GET request (its query string)', async () => {
    const variables = encodeURIComponent(JSON.stringify({ n: `https://dave:${SECRET}@example.com/x` }));
    const query = encodeURIComponent('query($n: Int) { documents(first: $n) { totalCount } }');
    const res = await fetch(`${t.url}/graphql?query=${query}&variables=${variables}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain(SECRET);
    // pino-http logs once the response has finished.
    const logged = await eventually(() => t.logged().includes('/graphql?query=') && t.logged(), {
      what: 'the request logged',
    });
    expect(logged).toContain('/graphql?query=');
    expect(logged).toContain('***');
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain(encodeURIComponent(SECRET));
  });
});

describe('redactCredentials', () => {
  it('hides userinfo up to the last @ before the path, and nothing else', () => {
    expect(redactCredentials('see https://u:p@ss@host:8443/a?b=c@d and ftp://host/x and mailto:a@b')).toBe(
      'see https://***@host:8443/a?b=c@d and ftp://host/x and mailto:a@b',
    );
    expect(redactCredentials('no urls here')).toBe('no urls here');
  });

  it('takes linear time on text made to make a regular expression backtrack', () => {
    const started = performance.now();
    redactCredentials('a://'.repeat(100_000));
    redactCredentials(`x://${'a'.repeat(200_000)}`);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('clientSafeMessage', () => {
  it('cuts quoted strings (escaped quotes included) and bracketed values, keeping the words between them', () => {
    const tricky = JSON.stringify(`a\\"b${'x'.repeat(500)}`);
    const message = clientSafeMessage(
      `Variable "$v" got invalid value ${tricky} at "input.tags[0]"; Expected type "[String!]".`,
    );
    expect(message).toMatch(
      /^Variable "\$v" got invalid value "a\\\\\\"bx+…" \(\d+ characters\) at "input\.tags\[0\]"; Expected type "\[String!\]"\.$/,
    );
    const list = clientSafeMessage(
      `got invalid value [${Array.from({ length: 300 }, (_, i) => i).join(', ')}]; Expected type "Int".`,
    );
    expect(list).toMatch(/^got invalid value \[0, 1, 2, .*… \(\d+ characters\); Expected type "Int"\.$/);
  });

  it('handles a 40 MB message in well under a second of CPU', () => {
    const huge = `Variable "$n" got invalid value ${JSON.stringify('z'.repeat(20_000_000))}; Cannot query field ${'q'.repeat(20_000_000)}`;
    // CPU time, not wall time: a busy machine stretches the latter, while a pass that is not linear costs minutes of
    // the former.
    const started = process.cpuUsage();
    const message = clientSafeMessage(huge);
    const spent = process.cpuUsage(started);
    expect((spent.user + spent.system) / 1000).toBeLessThan(1000);
    expect(message.length).toBeLessThanOrEqual(MAX_CLIENT_MESSAGE);
  });
});
