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

# The app upgrades the schema at start; uvicorn with websockets-sansio and no compression.
CMD ["sh", "-c", "exec uvicorn app.main:create_app --factory --host \"$HOST\" --port \"$PORT\" --ws websockets-sansio --ws-per-message-deflate false --ws-max-size 65536 --proxy-headers --forwarded-allow-ips='*' --timeout-graceful-shutdown 10"]
