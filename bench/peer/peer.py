"""The peer side of `npm run bench:peer`: neo4j-graphrag's VectorCypherRetriever and HybridCypherRetriever.

Reads one JSON command per line on stdin and answers each with one JSON line on stdout. Query vectors come from the
bench (Cairn's hashing embedder), so both sides search with identical vectors and no embedder runs here.
"""
import json
import os
import re
import sys
import threading
import time

import neo4j
from neo4j_graphrag.retrievers import HybridCypherRetriever, VectorCypherRetriever
from neo4j_graphrag.types import HybridSearchRanker, RetrieverResultItem

TOP_K = 10
ALPHA = 0.2

# The retrieval query of issue 21: each chunk with up to 5 entities it mentions and 5 of their neighbours.
RETRIEVAL_QUERY = """
WITH node, score
CALL (node) {
  OPTIONAL MATCH (node)-[:MENTIONS]->(e:PeerEntity)
  WITH e LIMIT 5
  OPTIONAL MATCH (e)-[r]-(nb:PeerEntity)
  RETURN collect(DISTINCT e.name) AS entities, collect(DISTINCT nb.name)[..5] AS neighbours
}
RETURN node.text AS text, node.document_id AS document_id, score, entities, neighbours
"""


# Lucene's query syntax would read parentheses, slashes and the like in a question as operators.
LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')


def lucene_text(text):
    return LUCENE_SPECIAL.sub(r"\\\1", text)


def formatter(record):
    return RetrieverResultItem(
        content=record.get("text"),
        metadata={"document_id": record.get("document_id"), "score": record.get("score"), "entities": record.get("entities"), "neighbours": record.get("neighbours")},
    )


class Peer:
    def __init__(self, cmd):
        self.driver = neo4j.GraphDatabase.driver(cmd["uri"], auth=(cmd["user"], cmd["password"]))
        self.queries = cmd["queries"]
        self.retrievers = {
            "vector": VectorCypherRetriever(self.driver, index_name=cmd["vectorIndex"], retrieval_query=RETRIEVAL_QUERY, result_formatter=formatter),
            "hybrid": HybridCypherRetriever(
                self.driver,
                vector_index_name=cmd["vectorIndex"],
                fulltext_index_name=cmd["fulltextIndex"],
                retrieval_query=RETRIEVAL_QUERY,
                result_formatter=formatter,
            ),
        }

    def search(self, retriever, i):
        q = self.queries[i % len(self.queries)]
        if retriever == "vector":
            return self.retrievers["vector"].search(query_vector=q["vector"], top_k=TOP_K)
        return self.retrievers["hybrid"].search(query_text=lucene_text(q["text"]), query_vector=q["vector"], top_k=TOP_K, ranker=HybridSearchRanker.LINEAR, alpha=ALPHA)

    def one(self, cmd):
        start = time.perf_counter()
        result = self.search(cmd["retriever"], cmd["i"])
        ms = (time.perf_counter() - start) * 1000
        return {"ms": ms, "documents": [item.metadata["document_id"] for item in result.items], "entities": sum(len(item.metadata["entities"]) for item in result.items)}

    def load(self, cmd):
        """`clients` threads call the retriever for `seconds`, each query in turn; returns every latency."""
        latencies = []
        errors = []
        counter = [cmd.get("offset", 0)]
        lock = threading.Lock()
        end = time.perf_counter() + cmd["seconds"]

        def work():
            while time.perf_counter() < end:
                with lock:
                    i = counter[0]
                    counter[0] += 1
                start = time.perf_counter()
                try:
                    self.search(cmd["retriever"], i)
                except Exception as err:  # noqa: BLE001 - reported to the bench
                    errors.append(str(err)[:300])
                    continue
                ms = (time.perf_counter() - start) * 1000
                with lock:
                    latencies.append(ms)

        started = time.perf_counter()
        threads = [threading.Thread(target=work) for _ in range(cmd["clients"])]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return {"seconds": time.perf_counter() - started, "ms": latencies, "errors": len(errors), "errorExamples": errors[:3]}


def main():
    peer = None
    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            if cmd["op"] == "init":
                peer = Peer(cmd)
                answer = {"pid": os.getpid()}
            elif cmd["op"] == "search":
                answer = peer.one(cmd)
            elif cmd["op"] == "load":
                answer = peer.load(cmd)
            elif cmd["op"] == "close":
                peer.driver.close()
                answer = {}
            else:
                answer = {"error": f"unknown op {cmd['op']}"}
        except Exception as err:  # noqa: BLE001 - reported to the bench
            answer = {"error": f"{type(err).__name__}: {err}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
