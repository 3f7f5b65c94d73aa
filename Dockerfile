# syntax=docker/dockerfile:1
# Node 24, the current LTS, in both stages: better-sqlite3's addon is built for one Node ABI, so the
# stage that installs node_modules runs the same Node as the image that loads them.
# Build stage: install everything (better-sqlite3 compiles here), bundle our TypeScript.
FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/server/package.json apps/server/
COPY apps/cli/package.json apps/cli/
COPY packages/db/package.json packages/db/
COPY packages/solver/package.json packages/solver/
COPY packages/tasks/package.json packages/tasks/
COPY packages/mcp-tasks/package.json packages/mcp-tasks/
COPY packages/reflow/package.json packages/reflow/
COPY seed/package.json seed/
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

# Runtime stage: the bundle, production node_modules, migrations and the demo month; no compiler.
FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATABASE_PATH=/data/reflow.db \
    SEED_FILE=/app/seed/riverside-2026-09.json MIGRATIONS_DIR=/app/migrations
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/apps/server/public ./apps/server/public
COPY --from=build /app/seed/riverside-2026-09.json ./seed/
COPY --from=build /app/package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/server.js"]
