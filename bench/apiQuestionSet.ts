import fs from 'node:fs';
import path from 'node:path';
import { specIds } from '../importers/openapi/ids.js';
import { projectRoot } from '../src/paths.js';
import { DATA_DIR } from './datasets.js';

/** The question set: bench/data/apiQuestions.json. */
export const API_QUESTIONS_FILE = path.join(projectRoot, 'bench', 'data', 'apiQuestions.json');
/** Where the specs live; each spec's `file` is relative to it. */
export const OPENAPI_DIR = path.join(DATA_DIR, 'openapi');

export const QUESTION_KINDS = ['natural', 'identifier', 'parameter'] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

/** A spec the questions are asked over, imported under `id` as its spec id. */
export interface ApiSpec {
  id: string;
  file: string;
  /** A spec that may not import (yet): its questions are skipped with a note instead of failing the run. */
  optional?: boolean;
}

/** An operation, named as its spec names it. */
export interface OperationRef {
  method: string;
  path: string;
  operationId?: string;
}

export interface ApiQuestion {
  question: string;
  kind: QuestionKind;
  spec: string;
  expected: OperationRef;
  /** The same operation in other specs of the set (the petstore variants): finding any of them answers the question. */
  alsoAccepted?: (OperationRef & { spec: string })[];
}

export interface ApiQuestionSet {
  specs: ApiSpec[];
  questions: ApiQuestion[];
}

export function loadApiQuestionSet(file = API_QUESTIONS_FILE): ApiQuestionSet {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ApiQuestionSet;
}

/** The id the OpenAPI importer gives an operation's document (importers/openapi/ids.ts). */
export function operationDocumentId(specId: string, op: OperationRef): string {
  return specIds(specId).operationDocument(`${op.method.toUpperCase()} ${op.path}`);
}

/** Every document that answers a question: the expected operation's and its equivalents'. */
export function acceptedDocumentIds(q: ApiQuestion): string[] {
  return [
    operationDocumentId(q.spec, q.expected),
    ...(q.alsoAccepted ?? []).map((a) => operationDocumentId(a.spec, a)),
  ];
}
