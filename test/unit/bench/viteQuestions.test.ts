import fs from 'node:fs';
import path from 'node:path';
import {
  containsAnswer,
  loadViteQuestionSet,
  VITE_DOCS_DIR,
  VITE_QUESTION_KINDS,
  type ViteQuestion,
} from '../../../bench/viteQuestionSet.js';

// The question set of the Vite docs bench: its shape, and that every answer is on the page it names.
const set = loadViteQuestionSet();
const words = (q: ViteQuestion) => q.answer.trim().split(/\s+/).length;

describe('Vite questions: the set', () => {
  it('has at least 40 questions, every kind, and at least 8 two-hop questions', () => {
    expect(set.questions.length).toBeGreaterThanOrEqual(40);
    for (const kind of VITE_QUESTION_KINDS) expect(set.questions.some((q) => q.kind === kind)).toBe(true);
    expect(set.questions.filter((q) => q.kind === 'two-hop').length).toBeGreaterThanOrEqual(8);
  });

  it('has no duplicate question', () => {
    const normalised = set.questions.map((q) => q.question.toLowerCase().replace(/\s+/g, ' ').trim());
    expect(normalised.filter((q, i) => normalised.indexOf(q) !== i)).toEqual([]);
  });

  it('gives each question pages, an answer of 2 to 8 words, and two-hop questions two pages and an answer page', () => {
    const wrong: string[] = [];
    for (const q of set.questions) {
      if (!VITE_QUESTION_KINDS.includes(q.kind)) wrong.push(`${q.question}: kind ${q.kind}`);
      if (q.pages.length === 0 || q.pages.some((p) => path.isAbsolute(p) || p.includes('..')))
        wrong.push(`${q.question}: pages ${JSON.stringify(q.pages)}`);
      if (words(q) < 2 || words(q) > 8) wrong.push(`${q.question}: answer of ${words(q)} words`);
      const twoHop = q.kind === 'two-hop';
      if (twoHop && (q.pages.length !== 2 || !q.answerPage || !q.pages.includes(q.answerPage) || !q.bridge))
        wrong.push(`${q.question}: a two-hop question needs two pages, its answerPage among them and a bridge`);
      if (!twoHop && q.answerPage !== undefined) wrong.push(`${q.question}: answerPage on a one-hop question`);
    }
    expect(wrong).toEqual([]);
  });
});

// The docs are data beside the repository (../shared/data/docs/vite, or CAIRN_BENCH_DATA); a clone without them skips this part.
const withDocs = fs.existsSync(VITE_DOCS_DIR) ? describe : describe.skip;
if (!fs.existsSync(VITE_DOCS_DIR))
  console.warn(`Skipping the Vite questions' answer checks: ${VITE_DOCS_DIR} does not exist.`);

withDocs('Vite questions: the answers', () => {
  const read = (page: string) => fs.readFileSync(path.join(VITE_DOCS_DIR, page), 'utf8');

  it('names pages that exist', () => {
    const missing = set.questions.flatMap((q) => q.pages.filter((p) => !fs.existsSync(path.join(VITE_DOCS_DIR, p))));
    expect(missing).toEqual([]);
  });

  it('copies each answer verbatim from its answering page (case-sensitive, whitespace collapsed)', () => {
    const wrong = set.questions
      .filter((q) => !(q.answerPage ? [q.answerPage] : q.pages).some((p) => containsAnswer(read(p), q)))
      .map((q) => `${q.question} → "${q.answer}" is not on ${q.answerPage ?? q.pages.join(' or ')}`);
    expect(wrong).toEqual([]);
  });

  it('names the bridge of a two-hop question on both of its pages', () => {
    const wrong = set.questions
      .filter((q) => q.kind === 'two-hop' && q.bridge && !q.pages.every((p) => read(p).includes(q.bridge ?? '')))
      .map((q) => `${q.question}: "${q.bridge}" is not on both ${q.pages.join(' and ')}`);
    expect(wrong).toEqual([]);
  });

  it('is not answered by a case-insensitive match only', () => {
    const upper = { ...set.questions[0], answer: (set.questions[0]?.answer ?? '').toUpperCase() } as ViteQuestion;
    expect(containsAnswer(read(upper.pages[0] ?? ''), upper)).toBe(false);
  });
});
