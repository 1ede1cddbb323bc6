const POW10 = Float64Array.from({ length: 23 }, (_, i) => 10 ** i);
const MINUS = 45;
const PLUS = 43;
const DOT = 46;
const COMMA = 44;
const CLOSE = 93;
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * Parses pgvector's text form (`[0.1,-2e-05,3]`) into `out`, returning the dimension. Parsing is most of the
 * in-memory index's load time, and this beats JSON.parse at it (bench/RESULTS.md). Text it does not expect (never
 * produced by pgvector) goes through JSON.parse.
 */
export function parseVectorText(text: string, out: Float64Array): number {
  if (text.charCodeAt(0) !== 0x5b || text.charCodeAt(text.length - 1) !== CLOSE) return parseSlow(text, out);
  if (text.length === 2) return 0;
  let n = 0;
  let i = 1;
  for (;;) {
    let c = text.charCodeAt(i);
    const negative = c === MINUS;
    if (negative) c = text.charCodeAt(++i);
    // Up to 9 significant digits (float4's shortest form): the mantissa is an exact integer.
    let mantissa = 0;
    let scale = 0;
    let digits = 0;
    for (; isDigit(c); c = text.charCodeAt(++i), digits++) mantissa = mantissa * 10 + (c - 48);
    if (c === DOT) {
      for (c = text.charCodeAt(++i); isDigit(c); c = text.charCodeAt(++i), digits++, scale--)
        mantissa = mantissa * 10 + (c - 48);
    }
    if (digits === 0 || digits > 15) return parseSlow(text, out);
    if (c === 101 || c === 69) {
      c = text.charCodeAt(++i);
      const negativeExp = c === MINUS;
      if (negativeExp || c === PLUS) c = text.charCodeAt(++i);
      let exp = 0;
      if (!isDigit(c)) return parseSlow(text, out);
      for (; isDigit(c); c = text.charCodeAt(++i)) exp = exp * 10 + (c - 48);
      scale += negativeExp ? -exp : exp;
    }
    // Dividing by an exact power of ten rounds once, where multiplying by 1e-k would round twice.
    const value = scale >= 0 ? mantissa * (POW10[scale] ?? 10 ** scale) : mantissa / (POW10[-scale] ?? 10 ** -scale);
    if (n >= out.length) return parseSlow(text, out);
    out[n++] = negative ? -value : value;
    if (c === CLOSE && i === text.length - 1) return n;
    if (c !== COMMA) return parseSlow(text, out);
    i++;
  }
}

function parseSlow(text: string, out: Float64Array): number {
  const values = JSON.parse(text) as unknown;
  if (!Array.isArray(values) || values.length > out.length || !values.every((v) => typeof v === 'number')) {
    throw new Error(`not a vector: ${text.slice(0, 40)}`);
  }
  out.set(values as number[]);
  return values.length;
}
