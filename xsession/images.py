"""Frame encodings: lossless WebP for stored screens, decoding whatever the store holds."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["decode_image", "encode_png", "encode_webp", "pixel_hash"]


def encode_webp(rgb: np.ndarray) -> bytes:
    """Lossless WebP: about 5 KB for a 1280x800 desktop, against 40 KB as PNG."""
    import cv2

    ok, data = cv2.imencode(".webp", rgb[:, :, ::-1], [cv2.IMWRITE_WEBP_QUALITY, 101])
    if not ok:
        raise ValueError("WebP encoding failed")
    return data.tobytes()


def encode_png(rgb: np.ndarray) -> bytes:
    """Lossless PNG bytes of an RGB (or grayscale) image: anchors and exported frames."""
    import cv2

    ok, data = cv2.imencode(".png", rgb[:, :, ::-1] if rgb.ndim == 3 else rgb)
    if not ok:
        raise ValueError(f"cannot encode a {rgb.shape} {rgb.dtype} array as PNG")
    return data.tobytes()


def decode_image(data: bytes) -> np.ndarray:
    """An RGB array from stored WebP or PNG bytes; ValueError when they are not an image."""
    import cv2
    import numpy as np

    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError("not a decodable image")
    return image[:, :, ::-1].copy()


def pixel_hash(rgb: np.ndarray) -> str:
    """The content address of a frame: sha256 of its RGB pixels and size."""
    digest = hashlib.sha256(f"{rgb.shape[1]}x{rgb.shape[0]}:".encode())
    digest.update(rgb.tobytes())
    return digest.hexdigest()
