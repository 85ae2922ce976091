"""Decoding of bytes tensors declared as images (``frame:bytes:image/jpeg``). Needs Pillow
(``pip install shardflow[images]`` or Debian's ``python3-pil``); nothing else imports it."""

from __future__ import annotations

import io

import numpy as np


def decode_image(data: bytes) -> np.ndarray:
    """A JPEG or PNG as a uint8 array of shape (H, W, C): C = 1 for greyscale, 3 for RGB, 4 with alpha."""
    try:
        from PIL import Image
    except ImportError as e:  # optional dependency
        raise ImportError("decoding image tensors needs Pillow: pip install 'shardflow[images]' "
                          "(or apt-get install python3-pil)") from e
    with Image.open(io.BytesIO(data)) as image:
        if image.mode not in ("L", "RGB", "RGBA"):
            image = image.convert("RGB")
        array = np.array(image, dtype=np.uint8)  # a writable copy, so torch.from_numpy may share it
    return array[:, :, None] if array.ndim == 2 else array
