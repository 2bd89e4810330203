"""Small real image files for tests, made here (no file is shipped)."""

from __future__ import annotations

import struct
import zlib


def png(width: int = 24, height: int = 16, rgb: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    """A valid PNG of one colour (a browser and Pillow read it)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


def bundle(campaign_name: str, campaign: bytes, images: dict[str, bytes]) -> bytes:
    """A ZIP bundle: the campaign file beside its images."""
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(campaign_name, campaign)
        for name, data in images.items():
            archive.writestr(name, data)
    return out.getvalue()
