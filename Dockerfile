# syntax=docker/dockerfile:1
# Node 24, the current LTS, in both stages: better-sqlite3's addon is built for one Node ABI, so the
# stage that installs node_modules runs the same Node as the image that loads them.
# Build stage: install everything (better-sqlite3 compiles here), bundle our TypeScript.
FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
# better-sqlite3 12 derives its objects from node::ObjectWrap, a header compiled into the addon; from
# Node 24.19 on it adds environment cleanup hooks, and an addon built with it aborts the process when
# the GC frees a statement ("Assertion failed: (env) != nullptr", nodejs/node#65446). So it compiles
# here, never a prebuilt download, against Node 24.18.1's headers (from the npm registry's platform
# package): the same ABI, and it runs on every 24.x. scripts/test-node24.sh builds it the same way.
RUN mkdir -p /opt/node-headers && cd /opt/node-headers \
 && npm pack --silent "node-linux-$(node -p process.arch)@24.18.1" \
 && tar -xzf node-linux-*.tgz --strip-components=1 package/include && rm node-linux-*.tgz
ENV npm_config_nodedir=/opt/node-headers npm_config_build_from_source=better-sqlite3
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
# The abort, provoked: thousands of statements for the GC to free; the build fails, not the server.
RUN node --expose-gc -e "const db = new (require('better-sqlite3'))(':memory:'); \
  for (let i = 0; i < 5000; i++) db.prepare('select ' + i).get(); gc(); setTimeout(() => { gc(); db.close(); }, 10);"
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
