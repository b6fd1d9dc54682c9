"""A ``base_url`` as agentv's wire clients use it (yarl, aiohttp's own URL library).

``https://user:pass@proxy.example/v1?token=abc`` is three things: the base the route's path
is appended to (``https://proxy.example/v1``), query parameters kept after that path
(``/v1/chat/completions?token=abc``), and userinfo sent as HTTP Basic auth (``Authorization:
Basic …``, as curl, requests and httpx do; aiohttp refuses a URL's userinfo beside an
``Authorization`` header). All three are secret-bearing (``providers.secret_fields``): the
run masks them in every output.
"""
from __future__ import annotations

from dataclasses import dataclass

from yarl import URL


@dataclass(frozen=True)
class Endpoint:
    base: str  # scheme://host[:port]/path, no userinfo, query or fragment, no trailing /
    query: tuple[tuple[str, str], ...] = ()
    authorization: str | None = None  # "Basic …" from the userinfo

    @classmethod
    def parse(cls, base_url: str) -> "Endpoint":
        from aiohttp import encode_basic_auth  # aiohttp only when a client is built: a
        # target's facts (``providers.registry``) import this module and nothing heavy
        url = URL(base_url)
        bare = url.with_user(None).with_query(None).with_fragment(None)
        auth = encode_basic_auth(url.user or "", url.password or "") \
            if url.user is not None or url.password is not None else None
        return cls(str(bare).rstrip("/"), tuple(url.query.items()), auth)

    def url(self, path_and_query: str) -> str:
        """The route's full URL (``path_and_query`` already joined to ``base``) with the
        base's query parameters after the route's own."""
        if not self.query:
            return path_and_query
        return str(URL(path_and_query, encoded=True).extend_query(list(self.query)))
