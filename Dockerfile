# The image of the API and of the Temporal worker (docker-compose.yml runs it twice with
# different commands). Node 24, the current LTS. The sources run as TypeScript through tsx,
# a production dependency for that reason: one loader for the API, the worker, the
# embedded-ClickHouse worker thread and the CLI, and no build output that could drift from
# the sources. Checked in CI without a Docker engine: test/int/deploy-files.int.test.ts.

# Dependencies apart, so a change to the sources reuses this layer.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The postinstall script patches postgres.js in node_modules (see the script's header): it must be here before npm ci.
COPY scripts/patch-postgres.mjs scripts/
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
# Listening on every interface, so never the development setting for outbound requests (http
# webhooks, loopback receivers): the service would refuse to start with it on.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data WEBHOOK_ALLOW_INSECURE_URLS=false
WORKDIR /app
# Owned by root and so read-only to the service: it writes only in DATA_DIR.
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# A named volume mounted on /data, or on /data/documents and /data/test-mode/documents
# (docker-compose.yml shares the judgment PDFs there), starts with the folder's owner, so the
# service can write there.
RUN mkdir -p /data/documents /data/test-mode/documents && chown -R node:node /data
# The official image's `node` user, by number: Kubernetes' runAsNonRoot can only verify a numeric user.
USER 1000:1000
EXPOSE 3000
# Slim images have neither curl nor wget: node's fetch asks the liveness endpoint.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/api/v1/prod/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself as PID 1, not npm: the service's SIGTERM handler drains it when the container stops.
CMD ["node", "--import", "tsx", "src/main.ts"]
