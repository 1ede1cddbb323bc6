import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/paths.js';
import { DATA_DIR } from './datasets.js';

/** The question set: bench/data/vite-questions.json. */
export const VITE_QUESTIONS_FILE = path.join(projectRoot, 'bench', 'data', 'vite-questions.json');
/** The Vite docs the questions are asked over; each question's `pages` are relative to it. */
export const VITE_DOCS_DIR = path.join(DATA_DIR, 'docs', 'vite');

export const VITE_QUESTION_KINDS = ['config', 'cli', 'api', 'howto', 'two-hop'] as const;
export type ViteQuestionKind = (typeof VITE_QUESTION_KINDS)[number];

export interface ViteQuestion {
  question: string;
  kind: ViteQuestionKind;
  /** The files that answer it, relative to VITE_DOCS_DIR (`docs/config/server-options.md`). */
  pages: string[];
  /** A phrase of the answering page (2–8 words) a correct context contains, compared after collapsing whitespace. */
  answer: string;
  /** Two-hop questions: the page that holds `answer` (the other page names the bridge). */
  answerPage?: string;
  /** Two-hop questions: what the first page names and the second describes. */
  bridge?: string;
}

export interface ViteQuestionSet {
  corpus: string;
  about: string;
  questions: ViteQuestion[];
}

export function loadViteQuestionSet(file = VITE_QUESTIONS_FILE): ViteQuestionSet {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ViteQuestionSet;
}

/** Whitespace runs as one space, as answers are compared. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Whether a context (or a page) contains a question's answer phrase, case-sensitively. */
export function containsAnswer(text: string, question: ViteQuestion): boolean {
  return collapseWhitespace(text).includes(collapseWhitespace(question.answer));
}
