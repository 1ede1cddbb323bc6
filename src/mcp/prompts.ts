import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import { ROOT_FIELD_ROLES } from '../graphql/fieldRoles.js';
import { requireRole, type Principal } from '../auth/roles.js';
import { badInput } from '../errors.js';
import { validateQueryText } from '../retrieval/searchRequest.js';
import type { Services } from '../services.js';

export const ANSWER_PROMPT: Prompt = {
  name: 'answer_with_cairn_context',
  title: 'Answer with Cairn context',
  description:
    "Answers a question from the knowledge base: fetches Cairn's context for it and asks for an answer that cites its sources.",
  arguments: [{ name: 'question', description: 'The question to answer.', required: true }],
};

/** The prompt with Cairn's context for the question filled in (runs enrich_context, so it needs that tool's role). */
export async function getAnswerPrompt(
  services: Services,
  principal: Principal,
  args: Record<string, string> | undefined,
): Promise<GetPromptResult> {
  requireRole(principal, ROOT_FIELD_ROLES.Query.enrichContext, `The ${ANSWER_PROMPT.name} prompt`);
  if (args?.question === undefined) throw badInput('question', 'is required');
  const question = validateQueryText(args.question, 'question');
  const result = await services.reads.run(() => services.enricher.enrich({ query: question }));
  const context = result.context || '(Cairn has nothing on this question.)';
  const text =
    'Answer the question below using the context from Cairn, the knowledge base. Cite the passages you use by their ' +
    'numbers, like [1]. If the context does not answer the question, say so instead of guessing.\n\n' +
    `<context>\n${context}\n</context>\n\nQuestion: ${question}`;
  return { description: ANSWER_PROMPT.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
}
