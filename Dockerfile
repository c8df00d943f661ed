# Gamenight: the Discord bot. Build: docker build -t gamenight .
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_PATH=/app/data/gamenight.sqlite3

WORKDIR /app

COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
RUN pip install ".[postgres]" \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin gamenight \
    && mkdir -p /app/data \
    && chown gamenight:gamenight /app/data

USER gamenight
VOLUME ["/app/data"]

CMD ["python", "-m", "bot"]
