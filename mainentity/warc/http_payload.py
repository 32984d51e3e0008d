"""An HTTP payload as a browser receives it: chunked transfer coding and content coding removed, bounded."""

from __future__ import annotations

import io

from mainentity.sitedump import MAX_PAGE_BYTES


def decode_http_payload(
    raw: bytes, content_encoding: str = "", transfer_encoding: str = "", max_bytes: int = MAX_PAGE_BYTES
) -> bytes:
    """An HTTP payload as a browser receives it: the chunked transfer coding and a ``gzip``, ``deflate``
    or ``br`` content coding removed.

    WARC writers such as ``wget`` and browsertrix record the payload as sent, and FastWARC leaves it so.
    warcio's readers remove the chunking and ``gzip``/``deflate``; Brotli's own ``decompress`` removes
    ``br`` (warcio's ``br`` reader does not work with brotli >= 1.2). As warcio does, a payload that its
    ``Transfer-Encoding`` calls chunked but that is not, or whose first bytes are not ``gzip``/``deflate``
    data, is taken as it is (servers mislabel payloads).

    Parameters
    ----------
    raw : bytes
        The HTTP payload as recorded (after the HTTP headers).
    content_encoding, transfer_encoding : str
        The response's ``Content-Encoding`` and ``Transfer-Encoding`` headers (empty when absent).
    max_bytes : int, default :data:`mainentity.sitedump.MAX_PAGE_BYTES`
        Largest payload returned, in bytes: decompression stops past it (a decompression bomb).

    Returns
    -------
    payload : bytes

    Raises
    ------
    ValueError
        If the content coding is none of these, the payload is not valid in it, or it is larger than
        ``max_bytes`` once decoded.
    ImportError
        If warcio is not installed (``pip install -e '.[crawl]'``).

    Examples
    --------
    >>> import gzip
    >>> body = gzip.compress(b"<h1>Hi</h1>")
    >>> decode_http_payload(b"%x\\r\\n%s\\r\\n0\\r\\n\\r\\n" % (len(body), body), "gzip", "chunked")
    b'<h1>Hi</h1>'
    >>> decode_http_payload(gzip.compress(bytes(10_000)), "gzip", max_bytes=1000)
    Traceback (most recent call last):
    ...
    ValueError: payload over the limit of 1000 bytes once decoded (content coding 'gzip'): not read
    """
    try:
        from warcio.bufferedreaders import BufferedReader, ChunkedDataReader
    except ImportError as error:
        raise ImportError("decoding HTTP payloads of WARC records needs warcio: pip install -e '.[crawl]'") from error
    coding = content_encoding.strip().lower()
    coding = {"identity": "", "x-gzip": "gzip"}.get(coding, coding)
    if coding not in ("", "gzip", "deflate", "br"):
        raise ValueError(f"content coding {content_encoding.strip()!r} cannot be decoded")
    if transfer_encoding.split(",")[-1].strip().lower() == "chunked":
        raw = ChunkedDataReader(io.BytesIO(raw)).read()
    try:
        if coding == "br":
            import brotli  # a dependency of FastWARC

            payload = brotli.Decompressor().process(raw, output_buffer_limit=max_bytes + 1)
        else:
            payload = BufferedReader(io.BytesIO(raw), decomp_type=coding).read(max_bytes + 1) if coding else raw
    except Exception as error:  # noqa: BLE001 - zlib.error, brotli.error: the codings' own errors
        raise ValueError(f"payload not valid in its content coding {coding!r}: {error}") from error
    if len(payload) > max_bytes:
        raise ValueError(f"payload over the limit of {max_bytes} bytes once decoded (content coding {coding!r}): "
                         "not read")
    return payload
