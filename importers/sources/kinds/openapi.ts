import { createHash } from 'node:crypto';
import { planOpenApi } from '../../pipeline/planSources.js';
import type { OpenApiConfig } from '../types.js';
import type { DriverContext, SourceDriver, SyncItem } from './driver.js';

/**
 * A spec URL, imported as importOpenApi imports it. Its fingerprint is a hash of the planned documents and graph, so
 * a spec that did not change writes nothing; operations gone from it are removed with the item's last record.
 */
export function openApiDriver(config: OpenApiConfig): SourceDriver {
  return {
    async *items(context: DriverContext): AsyncIterable<SyncItem> {
      context.setTotal(1);
      yield {
        key: config.url,
        label: config.url,
        async load() {
          const source = { url: config.url, tags: context.defaults.tags, source: config.url };
          const plan = await planOpenApi(source, context.planDeps);
          if (context.defaults.documentType)
            for (const doc of plan.documents) doc.documentType = context.defaults.documentType;
          const fingerprint = createHash('sha256')
            .update(JSON.stringify([plan.documents, plan.entities, plan.relationships]))
            .digest('hex');
          return { plan, fingerprint, state: { title: plan.spec?.title ?? null } };
        },
      };
    },
  };
}
