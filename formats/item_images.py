"""Images an item shows: the ``image`` column names a file of the campaign's bundle (a ZIP
holding the campaign file and its images) or of the images uploaded with it.

A name is a file name, never an address: ``http://…``, ``//host/…``, ``data:`` and paths
that climb (``..``) are refused, so nothing is fetched from the internet while judging.
The bytes must be PNG, JPEG or WebP by their magic bytes (not by the name's extension) and
at most :data:`MAX_IMAGE_BYTES`, or a video, MP4 (an ISO-BMFF ``ftyp`` box) or WebM (an EBML
header naming the ``webm`` doctype), at most :data:`MAX_VIDEO_BYTES`: the same ``image``
column names either, and the page draws a video with the browser's own player.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Mapping

MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_VIDEO_BYTES = 50 * 1024 * 1024
#: The media types a video may have (:func:`media_type`).
VIDEO_TYPES = ("video/mp4", "video/webm")
MAX_BUNDLE_IMAGES = 10_000
MAX_NAME = 300
_ADDRESS = re.compile(r"^\s*([a-z][a-z0-9+.-]*:|//|\\\\)", re.I)


def name_problem(name: str) -> tuple[str, str] | None:
    """``(message, fix)`` when ``name`` cannot name an image file; None when it can."""
    if "\x00" in name:
        return "image contains a NUL byte (\\x00)", "Remove NUL characters."
    if len(name) > MAX_NAME:
        return (f"image is {len(name):,} characters long, over the limit of {MAX_NAME}",
                "Use a shorter file name.")  # fmt: skip
    if _ADDRESS.match(name) or "://" in name:
        return (
            f"image {name[:80]!r} is an address; Tandem never fetches images while judging",
            "Put the image file in the campaign's ZIP bundle (or upload it with the file) and "
            "name it here, e.g. images/item1.png.",
        )
    if ".." in name.replace("\\", "/").split("/") or name.startswith(("/", "\\")):
        return (f"image {name[:80]!r} climbs out of the bundle or is absolute",
                "Name the file by its path inside the bundle, e.g. images/item1.png.")  # fmt: skip
    return None


def media_type(data: bytes) -> str | None:
    """``image/png``, ``image/jpeg`` or ``image/webp`` by the magic bytes; None otherwise."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if len(data) >= 12 and data[4:8] == b"ftyp":
        return "video/mp4"
    if data.startswith(b"\x1a\x45\xdf\xa3") and b"webm" in data[:64]:
        return "video/webm"
    return None


def bytes_problem(name: str, data: bytes) -> tuple[str, str] | None:
    """``(message, fix)`` when the file ``name`` holding ``data`` may not be shown."""
    if media_type(data) in VIDEO_TYPES:
        if len(data) > MAX_VIDEO_BYTES:
            return (
                f"video {name!r} is {len(data) / 2**20:.1f} MiB, over the limit of "
                f"{MAX_VIDEO_BYTES // 2**20} MiB",
                "Cut it to the part the item needs, or lower its resolution or bitrate.",
            )
        return None
    if len(data) > MAX_IMAGE_BYTES:
        return (
            f"image {name!r} is {len(data) / 2**20:.1f} MiB, over the limit of "
            f"{MAX_IMAGE_BYTES // 2**20} MiB",
            "Scale it down or compress it (a screen shows about 1,000 pixels across).",
        )
    if media_type(data) is None:
        return (
            f"image {name!r} is not a PNG, JPEG or WebP image nor an MP4 or WebM video "
            "(judged by its first bytes)",
            "Convert it to PNG, JPEG or WebP (a video to MP4 or WebM).",
        )
    return None


def read_bundle(
    data: bytes, filename: str, max_mb: float = 500
) -> tuple[str, bytes, dict[str, bytes]]:
    """A ZIP bundle → (the campaign file's name, its bytes, image path → bytes). The bundle
    holds exactly one campaign file (.csv, .tsv, .jsonl, .ndjson, .parquet) and any number
    of other files (the images), read by their path inside the ZIP. ValueError names what is
    wrong with the bundle; the campaign file is read up to ``max_mb`` (its own limit)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as err:
        raise ValueError(f"{filename}: not a readable ZIP file ({err})") from err
    campaign: list[zipfile.ZipInfo] = []
    images: dict[str, bytes] = {}
    members = [m for m in archive.infolist() if not m.is_dir()]
    if len(members) > MAX_BUNDLE_IMAGES + 1:
        raise ValueError(f"{filename}: holds {len(members):,} files, over {MAX_BUNDLE_IMAGES:,}")
    for m in members:
        if m.filename.lower().endswith((".csv", ".tsv", ".jsonl", ".ndjson", ".parquet")):
            campaign.append(m)
            continue
        if m.file_size > MAX_VIDEO_BYTES:  # the declared size, before inflating anything
            images[m.filename] = b"\x00" * (MAX_IMAGE_BYTES + 1)  # refused by name on use
            continue
        with archive.open(m) as fh:
            images[m.filename] = fh.read(MAX_VIDEO_BYTES + 1)
    if len(campaign) != 1:
        names = ", ".join(m.filename for m in campaign) or "none"
        raise ValueError(
            f"{filename}: a bundle holds exactly one campaign file (.csv, .tsv, .jsonl, "
            f".parquet) beside its images; found {names}"
        )
    limit = int(max_mb * 1024 * 1024)
    if campaign[0].file_size > limit:
        raise ValueError(f"{filename}: {campaign[0].filename} is over the limit of {max_mb:g} MB")
    with archive.open(campaign[0]) as fh:
        return campaign[0].filename, fh.read(limit + 1), images


def checked_images(names: Mapping[str, bytes]) -> dict[str, tuple[str, bytes]]:
    """name → (media type, bytes) of the images that pass :func:`bytes_problem`."""
    return {n: (media_type(d) or "", d) for n, d in names.items() if bytes_problem(n, d) is None}
