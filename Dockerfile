# Production image: compiled TypeScript on Node 20.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# onnxruntime-node's install script would download CUDA libraries Cairn never uses; npm 11 skips it by package.json's
# allowScripts, and this variable makes it skip itself under the npm 10 of the node:20 image.
RUN ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json schema.graphql ./
COPY src ./src
COPY importers ./importers
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
# Listening on every interface: keys are always required (create one with `node dist/src/cli/main.js keys create`).
ENV NODE_ENV=production CAIRN_HOST=0.0.0.0 CAIRN_AUTH=required CAIRN_PORT=4000 CAIRN_DATA_DIR=/data
# GIT sources run the git CLI, and ssh for repositories reached with a deploy key.
RUN apt-get update && apt-get install -y --no-install-recommends git openssh-client ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json schema.graphql ./
COPY src/db/migrations ./src/db/migrations
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD node -e "fetch('http://127.0.0.1:4000/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/cli/main.js", "serve"]
