import { AppError, ErrorCode } from '../errors.js';

/**
 * Characters of document and chunk text one response may carry (CAIRN_MAX_RESPONSE_TEXT_CHARS). Document text is the
 * one field without a size bound (up to CAIRN_MAX_DOCUMENT_CHARS each), and a query can name one document many times
 * (every entity that mentions it): without a budget a reader's small query built responses of hundreds of MB.
 */
export class TextBudget {
  private spent = 0;

  constructor(readonly limit: number) {}

  /** Characters still allowed. */
  get remaining(): number {
    return Math.max(0, this.limit - this.spent);
  }

  /** Spends `text`'s length and returns it, or throws `exceeded()` when it would pass the limit. */
  take(text: string): string {
    if (text.length > this.remaining) throw this.exceeded();
    this.spent += text.length;
    return text;
  }

  /** QUERY_TOO_COMPLEX naming the budget and how to stay within it. */
  exceeded(): AppError {
    return new AppError(
      ErrorCode.QUERY_TOO_COMPLEX,
      `The response would carry more than ${this.limit} characters of document and chunk text (CAIRN_MAX_RESPONSE_TEXT_CHARS); ask for fewer documents or chunks per request, or leave out content.`,
      { limit: 'text', max: this.limit, env: 'CAIRN_MAX_RESPONSE_TEXT_CHARS' },
    );
  }
}
