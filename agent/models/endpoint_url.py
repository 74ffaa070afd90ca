"""Endpoint URLs as they are shown and stored: credentials in them replaced by `***`.

Shared by every backend and the configuration (agent/config.py), so neither knows the
OpenAI adapter to redact a URL.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "***"
_SECRET_PARAMS = ("key", "token", "secret", "password", "auth", "signature", "sig")


def redact_url(url: str) -> str:
    """`url` with its user:password part and secret-looking query values replaced by `***`.

    `http://user:pw@host:8000/v1?api_key=k` becomes `http://***@host:8000/v1?api_key=***`;
    a URL without credentials is returned unchanged, so records stay comparable.

    Args:
        url: An endpoint URL as given (with --base-url or OPENAI_BASE_URL).

    Returns:
        The URL safe to print, log and store.
    """
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL at all: keep nothing that could be a secret after '@'
        return url.rsplit("@", 1)[-1] if "@" in url else url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_is_secret(name) for name, _ in pairs):
            query = urlencode(
                [(name, REDACTED if _is_secret(name) else value) for name, value in pairs],
                safe="*",
            )
    if (netloc, query) == (parts.netloc, parts.query):
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def url_secrets(url: str) -> list[str]:
    """The credentials written in `url`, longest first (to blank wherever a server echoes them).

    Its user:password part, the password alone, and secret-looking query values.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [parts.netloc.rsplit("@", 1)[0]] if "@" in parts.netloc else []
    if parts.password:
        found.append(parts.password)
    found += [v for n, v in parse_qsl(parts.query, keep_blank_values=True) if _is_secret(n) and v]
    return sorted({secret for secret in found if len(secret) >= 3}, key=len, reverse=True)


def _is_secret(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in _SECRET_PARAMS)
