# syntax=docker/dockerfile:1
#
# One image per process, all from this file:
#   docker build --build-arg SERVICE=gateway -t kith/gateway .
#   docker build --build-arg SERVICE=auth    -t kith/auth .
# SERVICE is `gateway` or a directory name under services/.

FROM node:20-bookworm-slim AS build
WORKDIR /app

# Manifests first, so `npm ci` stays cached until a dependency changes.
# Each workspace listed in package.json needs its line here (npm ci fails otherwise).
COPY package.json package-lock.json ./
COPY packages/proto/package.json packages/proto/
COPY packages/platform/package.json packages/platform/
COPY gateway/package.json gateway/
COPY services/auth/package.json services/auth/
COPY services/realtime/package.json services/realtime/
COPY services/social/package.json services/social/
COPY services/guilds/package.json services/guilds/
COPY bench/package.json bench/
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund

COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# Declared only now so that everything above is one shared cache for all services.
ARG SERVICE
# Stage into /out only what runs: root node_modules, the shared packages and the chosen
# process. Workspaces can hold their own node_modules (npm nests a dependency there when
# versions conflict), so those travel with them. /app/current points at the process.
RUN set -eu; \
    case "$SERVICE" in \
      gateway) dir=gateway ;; \
      "" | */* | .*) echo "build arg SERVICE must be 'gateway' or a directory under services/" >&2; exit 1 ;; \
      *) dir="services/$SERVICE" ;; \
    esac; \
    if [ ! -f "$dir/dist/main.js" ]; then echo "$dir/dist/main.js was not built" >&2; exit 1; fi; \
    mkdir -p /out; \
    cp -a package.json node_modules /out/; \
    for ws in packages/* "$dir"; do \
      mkdir -p "/out/$ws"; \
      for part in package.json dist node_modules migrations; do \
        if [ -e "$ws/$part" ]; then cp -a "$ws/$part" "/out/$ws/"; fi; \
      done; \
    done; \
    ln -s "/app/$dir" /out/current


FROM node:20-bookworm-slim
RUN groupadd --gid 10001 kith \
 && useradd --uid 10001 --gid kith --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin kith

ENV NODE_ENV=production
# Files stay root-owned: the process can read its code but never rewrite it.
COPY --from=build /out /app

ARG SERVICE
ENV OTEL_SERVICE_NAME=$SERVICE
# /app/current -> /app/gateway or /app/services/$SERVICE; the process sees the real path
# as its cwd, from which --import resolves @kith/platform through /app/node_modules.
WORKDIR /app/current
USER 10001:10001
CMD ["node", "--import", "@kith/platform/telemetry", "dist/main.js"]
