/** A JSON object, as stored in `metadata` of documents and graph items. */
export type JsonObject = { [key: string]: unknown };
