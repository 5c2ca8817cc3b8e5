# syntax=docker/dockerfile:1
# Errand: build stage compiles with the full toolchain; the runtime stage has production dependencies only.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary can be fetched.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# METRICS_HOST: a container's loopback is unreachable from outside it, so /healthz and /metrics (when
# METRICS_PORT is set) listen on every interface of the container; only a published port exposes them.
ENV NODE_ENV=production \
    DATABASE_PATH=/data/errand.db \
    METRICS_HOST=0.0.0.0
WORKDIR /app
# run_code's sandbox: bubblewrap, and Debian's Python with numpy, pandas and matplotlib. Running it needs the
# container started with user namespaces allowed (README "Running code": the security options and what they cost).
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap python3 python3-numpy python3-pandas python3-matplotlib \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/drizzle ./drizzle
COPY --from=build /app/drizzle-pg ./drizzle-pg
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/errand.example.json ./
# SKILLS_DIR defaults to ./skills: the example skills ship in the image (none is enabled until an admin says so);
# mount your own skills over /app/skills.
COPY --from=build /app/skills ./skills
# The database (and its lock file) live on a volume owned by the unprivileged node user.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
# Healthy when /healthz answers 200; without METRICS_PORT there is no endpoint and the check always passes.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "scripts/healthcheck.mjs"]
CMD ["node", "--expose-gc", "--v8-pool-size=1", "--max-semi-space-size=4", "dist/src/main.js"]
