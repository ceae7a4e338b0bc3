# syntax=docker/dockerfile:1
#
# One image per process, all from this file:
#   docker build --build-arg SERVICE=gateway -t kith/gateway .
#   docker build --build-arg SERVICE=auth    -t kith/auth .
# SERVICE is `gateway` or a directory name under services/ (the names `node scripts/processes.mjs`
# prints). Nothing here lists the services: a new workspace needs no line in this file.

# Every package.json of the repository and the lock, nothing else: the `npm ci` layers below see
# only these, so they stay cached until a dependency changes.
FROM node:20-bookworm-slim AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && find . -name package.json -not -path '*/node_modules/*' -exec cp --parents {} /manifests/ \; \
 && cp package-lock.json /manifests/

# Builds every workspace once, with dev dependencies (TypeScript): shared by every SERVICE.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Installs the production dependencies of the chosen process alone (npm ci --workspace: its own,
# and those of the workspaces it depends on, never another service's, the benchmark's or any dev
# dependency), then stages into /out only what runs: those modules, the shared packages' and the
# process's built code and migrations. /app/current points at the process.
FROM node:20-bookworm-slim AS runtime
ARG SERVICE
WORKDIR /app
COPY --from=manifests /manifests/ ./
COPY --from=build /app/packages /built/packages
COPY --from=build /app/gateway /built/gateway
COPY --from=build /app/services /built/services
RUN --mount=type=cache,target=/root/.npm set -eu; \
    case "$SERVICE" in \
      gateway) dir=gateway ;; \
      "" | */* | .*) echo "build arg SERVICE must be 'gateway' or a directory under services/" >&2; exit 1 ;; \
      *) dir="services/$SERVICE" ;; \
    esac; \
    if [ ! -f "/built/$dir/dist/main.js" ]; then echo "$dir/dist/main.js was not built" >&2; exit 1; fi; \
    npm ci --omit=dev --workspace "$dir" --no-audit --no-fund; \
    mkdir -p /out; \
    cp -a package.json node_modules /out/; \
    for ws in packages/* "$dir"; do \
      mkdir -p "/out/$ws"; \
      cp -a "$ws/package.json" "/out/$ws/"; \
      if [ -e "$ws/node_modules" ]; then cp -a "$ws/node_modules" "/out/$ws/"; fi; \
      for part in dist migrations; do \
        if [ -e "/built/$ws/$part" ]; then cp -a "/built/$ws/$part" "/out/$ws/"; fi; \
      done; \
    done; \
    ln -s "/app/$dir" /out/current


FROM node:20-bookworm-slim
RUN groupadd --gid 10001 kith \
 && useradd --uid 10001 --gid kith --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin kith

# Production: a service refuses to start without the settings every replica must share
# (see README.md, "Settings").
ENV NODE_ENV=production
# Files stay root-owned: the process can read its code but never rewrite it.
COPY --from=runtime /out /app

ARG SERVICE
ENV OTEL_SERVICE_NAME=$SERVICE
# /app/current -> /app/gateway or /app/services/$SERVICE; the process sees the real path
# as its cwd, from which --import resolves @kith/platform through /app/node_modules.
WORKDIR /app/current
USER 10001:10001
CMD ["node", "--import", "@kith/platform/telemetry", "dist/main.js"]
