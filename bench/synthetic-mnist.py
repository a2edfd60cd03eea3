"""Writes a synthetic MNIST data set (the four IDX files, 60000 training and
10000 test images of the real sizes, as LibTorch's MNIST reader expects
them) for running pytorch/examples cpp/mnist where the real data set cannot
be downloaded: each image is noise with a bright bar whose position is its
label, so the model has something to learn.

  python3 bench/synthetic-mnist.py DIR
"""
import os
import random
import struct
import sys


def write(directory, prefix, count, rng):
    labels = bytes(rng.randrange(10) for _ in range(count))
    # Dim noise (0..63): one translate of random bytes, seconds not minutes.
    pixels = bytearray(rng.randbytes(count * 784).translate(
        bytes(v // 4 for v in range(256))))
    for i, label in enumerate(labels):
        base = i * 784 + (2 + 2 * label) * 28
        pixels[base:base + 28] = b"\xff" * 28
    with open(os.path.join(directory, prefix + "-images-idx3-ubyte"), "wb") as f:
        f.write(struct.pack(">iiii", 2051, count, 28, 28))
        f.write(pixels)
    with open(os.path.join(directory, prefix + "-labels-idx1-ubyte"), "wb") as f:
        f.write(struct.pack(">ii", 2049, count))
        f.write(labels)


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    rng = random.Random(0)
    write(directory, "train", 60000, rng)
    write(directory, "t10k", 10000, rng)


if __name__ == "__main__":
    main()
