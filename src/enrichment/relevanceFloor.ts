/**
 * The documents lane's adaptive relevance floor: a hit stays out of the context when it scores below `floor` times the
 * best hit's score and also holds less than half the query words the best-covering hit holds. Either signal alone keeps
 * a hit: a second-hop passage may score low yet name what the question asks, and a paraphrase may match few words yet
 * score close to the best. So in a knowledge base where one document answers, an unrelated page that only the vector
 * lane's noise ranked does not pad the context, while related passages still fill it.
 */

/** Share of the best covering hit's query-word coverage a hit under the score floor still needs. */
export const COVERAGE_SHARE = 0.5;

/** The part of a hit the floor reads. */
export interface FloorHit {
  chunkId: string;
  score: number;
}

/**
 * Whether each hit passes the floor, by chunk id; `coverage` is each hit's share of the query's words (absent: 0).
 * The best hit always passes.
 */
export function passesFloor(
  hits: readonly FloorHit[],
  coverage: ReadonlyMap<string, number>,
  floor: number,
): (hit: FloorHit) => boolean {
  const top = Math.max(0, ...hits.map((h) => h.score));
  const bestCoverage = Math.max(0, ...hits.map((h) => coverage.get(h.chunkId) ?? 0));
  return (h) => {
    if (h.score >= floor * top) return true;
    const c = coverage.get(h.chunkId) ?? 0;
    return c > 0 && c >= COVERAGE_SHARE * bestCoverage;
  };
}
