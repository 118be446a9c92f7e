# Gurka online: one app process. Build: docker build -t gurka .
FROM python:3.11-slim AS app

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/gurka
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip install .

COPY alembic.ini ./
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static

RUN useradd --system --uid 10001 --home-dir /srv/gurka gurka \
    && mkdir -p /srv/gurka/data && chown gurka /srv/gurka/data
USER gurka

ENV DATABASE_URL=sqlite:////srv/gurka/data/gurka.db \
    HOST=0.0.0.0 \
    PORT=8000
EXPOSE 8000

HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"PORT\", \"8000\")}/healthz', timeout=2)"

# `gurka serve`, run as `python -m app.main serve` so the app is imported from this folder,
# beside its templates, static files and migrations: the schema upgraded first, uvicorn with
# websockets-sansio and no compression, X-Forwarded-For believed only from FORWARDED_ALLOW_IPS
# (the proxy in front; compose sets it). It refuses to start without a strong SECRET_KEY.
CMD ["python", "-m", "app.main", "serve"]
