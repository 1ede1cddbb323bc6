/**
 * Queues mirror ops (`$1`: their JSON texts) in the outbox, in order. A link gets the space its mention was recorded
 * in (the Neo4j mirror links only within it); a link whose mention was not recorded (the mentions trigger drops one
 * whose entity is of another space than its document) is not queued. Run by `MentionRepository.enqueue`, which owns
 * the outbox.
 */
export const ENQUEUE_OPS = `INSERT INTO graph_outbox (op)
SELECT CASE WHEN x.op->>'op' = 'link' THEN x.op || jsonb_build_object('space', m.space_id) ELSE x.op END
  FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n)
 CROSS JOIN LATERAL (SELECT u.t::jsonb AS op) x
  LEFT JOIN LATERAL (SELECT m.space_id FROM mentions m
                      WHERE x.op->>'op' = 'link' AND m.entity_id = x.op->>'entityId'
                        AND m.document_id = x.op->>'documentId' LIMIT 1) m ON true
 WHERE x.op->>'op' <> 'link' OR m.space_id IS NOT NULL
 ORDER BY u.n`;
