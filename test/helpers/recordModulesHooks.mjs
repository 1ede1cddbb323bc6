import fs from 'node:fs';

/** Records each module's URL as it loads. */
export async function load(url, context, nextLoad) {
  const file = process.env.CAIRN_TEST_MODULE_LOG;
  if (file) fs.appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
