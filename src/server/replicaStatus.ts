import type { ComponentStatus } from './Readiness.js';
import type { Replica, ReplicaSet } from '../db/ReplicaSet.js';

const describe = (r: Replica): string =>
  r.state === 'up' || r.state === 'lagging'
    ? `${r.name} ${r.state} (${r.lagMs} ms behind, ${r.reads} reads)`
    : `${r.name} ${r.state}${r.error ? `: ${r.error}` : ''}`;

/**
 * `/readyz`'s view of the replicas. Always ready: a skipped replica's reads go to the primary, so the instance still
 * answers everything; a warning names the replicas out of service.
 */
export function replicaStatus(set: ReplicaSet): ComponentStatus {
  const skipped = set.replicas.filter((r) => r.state !== 'up');
  return {
    ok: true,
    detail: set.replicas.map(describe).join('; '),
    ...(skipped.length > 0
      ? {
          warning: `${skipped.length} of ${set.replicas.length} replicas skipped (their reads go to the primary): ${skipped.map((r) => `${r.name} ${r.state}`).join(', ')}`,
        }
      : {}),
  };
}
