import { readSpaces } from '../db/spaceScope.js';
import type { GraphService } from '../graph/GraphService.js';
import type { EnrichedEntityRecord } from './types.js';

/**
 * The entities with the space each lives in, when the request reads other spaces than its own (see widenReads): the
 * context then marks those of another space as read-only context. A request of one space reads nothing more.
 */
export async function withEntitySpaces(
  graph: Pick<GraphService, 'entitySpaces'>,
  entities: EnrichedEntityRecord[],
): Promise<EnrichedEntityRecord[]> {
  if ((readSpaces()?.length ?? 1) < 2 || entities.length === 0) return entities;
  const spaces = await graph.entitySpaces(entities.map((e) => e.entity.id));
  return entities.map((e) => {
    const space = spaces.get(e.entity.id);
    return space === undefined ? e : { ...e, space };
  });
}
