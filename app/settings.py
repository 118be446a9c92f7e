"""Settings read from the environment (or a `.env` file); every name is documented in README.md."""

from __future__ import annotations

from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        default="sqlite:///./gurka.db",
        description="SQLAlchemy URL: SQLite by default, postgresql+psycopg://… for Postgres.",
    )
    secret_key: str = Field(
        default="",
        description="Signs the elders' sessions and the members' devices: at least 32 random characters. "
        "The app refuses to start without a strong one (app/secret_key.py), except in development.",
    )
    environment: Literal["production", "development"] = Field(
        default="production",
        description="development (`make run`): an unset SECRET_KEY is kept in a local file, .secret_key.",
    )
    forwarded_allow_ips: str = Field(
        default="127.0.0.1",
        description="The proxies (addresses or networks, comma separated) whose X-Forwarded-For and "
        "X-Forwarded-Proto are believed; the client is the rightmost address not among them. Empty: none.",
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Extra origins allowed to open websockets, comma separated "
        "(the page's own origin is always allowed).",
    )
    bot_delay: float = Field(default=0.8, ge=0, description="Seconds a bot waits before it acts.")
    bot_workers: int = Field(
        default=0, ge=0, le=64,
        description="Worker processes in which strong bots think (0: one per core but one, at least one).",
    )
    seat_takeover_seconds: float = Field(
        default=60, ge=0, description="How long a seat may be empty before the host can give it to a bot."
    )
    deal_pause: float = Field(
        default=2.0, ge=0, le=30,
        description="Seconds the final trick and cards stay on the table before the next deal "
        "(any seated player may skip it).",
    )
    gc_pacing: bool = Field(
        default=True,
        description="Pace garbage collection for a steady event loop (app/gc_pacing.py); false: "
        "CPython's own collections only.",
    )
    club_time_zone: str = Field(
        default="Europe/Copenhagen",
        description="The club's time zone (IANA name): the night's timetable (15:00 coffee … 23:00 night "
        "food) is on its clock.",
    )
    secure_cookies: bool = Field(default=False, description="Send cookies with Secure (behind HTTPS).")
    login_free_attempts: int = Field(
        default=5, ge=1, description="Elder login attempts per name and per address before back-off."
    )
    ws_per_room: int = Field(default=60, ge=1, description="Most websockets one room accepts.")
    ws_per_address: int = Field(default=20, ge=1, description="Most websockets from one address.")
    ws_connects_per_address: int = Field(
        default=30, ge=1, description="Most new websockets one address may open per 10 seconds."
    )
    ws_player_messages: int = Field(
        default=100, ge=1, description="Messages a player's socket may send per 20 seconds."
    )
    ws_spectator_messages: int = Field(
        default=50, ge=1, description="Messages a spectator's socket may send per 20 seconds."
    )
    new_rooms_per_address: int = Field(
        default=10, ge=1, description="Rooms one address may make per 10 minutes (more: 429, try again later)."
    )
    new_rooms_total: int = Field(
        default=200, ge=1, description="Rooms all addresses together may make per 10 minutes."
    )
    analyses_per_visitor: int = Field(
        default=6, ge=1, description="Analyses one visitor (a device's cookie) may start per hour (stored ones are free).",
    )
    analyses_per_address: int = Field(
        default=20, ge=1, description="Analyses one address may start per hour.",
    )
    lobby_idle_minutes: float = Field(
        default=60, ge=0,
        description="A room that never started and that nobody has had open for this long is deleted "
        "(0: never). Club tables never are.",
    )
    web_push: bool = Field(
        default=True,
        description="Web push (your turn, Gurka Night rounds, date polls); false: none, and no VAPID key needed.",
    )
    vapid_private_key: str = Field(
        default="",
        description="The VAPID key that signs web push messages (base64url, P-256): `gurka vapid-keys` makes "
        "one. `gurka serve` refuses to start without it unless WEB_PUSH=false; in development it is made "
        "once and kept in .vapid_key.",
    )
    vapid_subject: str = Field(
        default="mailto:webpush@gurka.invalid",
        description="Who push services may contact about our messages: mailto:you@example.org or https://…",
    )
    push_turn_delay: float = Field(
        default=30, ge=0, description="Seconds it must have been your turn, with none of your pages visible, "
        "before a \"your turn\" push.",
    )
    push_queue: int = Field(default=1000, ge=1, description="Most push messages waiting to be sent.")
    push_club_every: float = Field(
        default=30, gt=0, description="Seconds between looks at the club (rounds, date polls) for pushes.",
    )
    push_allow_loopback: bool = Field(
        default=False,
        description="Tests only: accept http:// push services on loopback addresses (the tests' own).",
    )
    host: str = Field(default="127.0.0.1", description="Address `gurka serve` listens on.")
    port: int = Field(default=8000, description="Port `gurka serve` listens on.")

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip().rstrip("/") for part in value.split(",") if part.strip()]
        return value

    @field_validator("club_time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r}: use an IANA name such as Europe/Copenhagen") from exc
        return value

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")
