"""What a text column can keep, for every input a player types (the socket's, the forms', the API's)."""


def storable_text(text: str) -> bool:
    """Whether a database column can keep this text: PostgreSQL refuses NUL in text and in jsonb, and
    a lone surrogate (what a JSON "\\ud800" escape decodes to) is not UTF-8. Refused here, such text
    would otherwise fail at the INSERT as a server error."""
    if "\x00" in text:
        return False
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True
