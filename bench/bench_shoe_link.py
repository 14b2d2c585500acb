# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Shoe link benchmark: decoder throughput, and pty frame-to-delivery latency.

Prints, from one run:

* the SRP/1 decoder's throughput (frames per second), alone and with the host session;
* the time from writing a frame's last byte on a pseudo-terminal to ``ShoeReader`` delivering
  it, beside the same pseudo-terminal's bare write-to-read time (an asyncio reader on the
  raw slave descriptor) measured in the same run, and their ratio.

Usage: python bench/bench_shoe_link.py [--frames N] [--samples M]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import tty

from drivers.events import CardSeen, ReaderEvent
from drivers.shoe_reader import ShoeReader
from drivers.srp.codec import FrameDecoder
from drivers.srp.constants import RANKS, SUITS
from drivers.srp.frames import Frame, FrameType, Talker
from drivers.srp.host import HostSession

CHUNK = 4096


def card_frame(seq: int) -> bytes:
    text = RANKS[seq % len(RANKS)] + SUITS[seq % len(SUITS)]
    frame = Frame(talker=Talker.SHOE, seq=seq % 65536, type=FrameType.CARD, fields=(text,))
    return frame.encode()


def decoder_throughput(frames: int) -> tuple[float, float, float]:
    """Frames per second through the decoder, and through the host session; MB/s decoded."""
    stream = b"".join(card_frame(seq) for seq in range(frames))
    chunks = [stream[i : i + CHUNK] for i in range(0, len(stream), CHUNK)]

    decoder = FrameDecoder()
    started = time.perf_counter()
    decoded = sum(len(decoder.feed(chunk)) for chunk in chunks)
    decoder_s = time.perf_counter() - started
    assert decoded == frames, (decoded, frames)

    session = HostSession()
    session.connection_made(0.0)
    started = time.perf_counter()
    delivered = 0
    for chunk in chunks:
        for event in session.receive_data(chunk, 0.0):
            if isinstance(event, CardSeen):
                delivered += 1
                session.confirm(event.delivery)
        session.data_to_send()
    session_s = time.perf_counter() - started
    assert delivered == frames, (delivered, frames)
    return frames / decoder_s, frames / session_s, len(stream) / decoder_s / 1e6


async def bare_pty_latency(samples: int) -> list[float]:
    """Write one frame on the master; time until an asyncio reader on the slave has it all."""
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    os.set_blocking(slave, False)
    loop = asyncio.get_running_loop()
    latencies: list[float] = []
    buffer = bytearray()
    arrived: asyncio.Future[int] | None = None
    expected = 0

    def readable() -> None:
        buffer.extend(os.read(slave, CHUNK))
        if arrived is not None and not arrived.done() and len(buffer) >= expected:
            arrived.set_result(time.perf_counter_ns())

    loop.add_reader(slave, readable)
    try:
        for seq in range(samples):
            frame = card_frame(seq)
            buffer.clear()
            expected = len(frame)
            arrived = loop.create_future()
            written = time.perf_counter_ns()
            os.write(master, frame)
            latencies.append((await arrived - written) / 1e3)
    finally:
        loop.remove_reader(slave)
        os.close(master)
        os.close(slave)
    return latencies


async def reader_pty_latency(samples: int) -> list[float]:
    """Write one frame on the master; time until ShoeReader delivers its card."""
    master, slave = os.openpty()
    tty.setraw(master)
    latencies: list[float] = []
    try:
        async with ShoeReader(os.ttyname(slave)) as reader:
            events = aiter(reader)
            await asyncio.sleep(0.2)  # let the port open
            for seq in range(samples):
                written = time.perf_counter_ns()
                os.write(master, card_frame(seq))
                event: ReaderEvent = await anext(events)
                while not isinstance(event, CardSeen):
                    event = await anext(events)
                latencies.append((time.perf_counter_ns() - written) / 1e3)
                await reader.confirm(event.delivery)
                os.read(master, CHUNK)  # drain the ACK so the pty never fills
    finally:
        os.close(master)
        os.close(slave)
    return latencies


def describe(latencies: list[float]) -> str:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"median {statistics.median(ordered):7.1f} us   p99 {p99:7.1f} us   (n={len(ordered)})"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200_000, help="frames for throughput")
    parser.add_argument("--samples", type=int, default=2_000, help="frames for latency")
    args = parser.parse_args()

    decoder_fps, session_fps, mb_per_s = decoder_throughput(args.frames)
    print(f"decoder throughput:          {decoder_fps:12,.0f} frames/s  ({mb_per_s:.1f} MB/s)")
    print(f"decoder + host session:      {session_fps:12,.0f} frames/s")

    bare = await bare_pty_latency(args.samples)
    driver = await reader_pty_latency(args.samples)
    print(f"bare pty write-to-read:      {describe(bare)}")
    print(f"pty frame-to-delivery:       {describe(driver)}")
    ratio = statistics.median(driver) / statistics.median(bare)
    print(f"frame-to-delivery / bare:    {ratio:.2f}x (medians, same run)")


if __name__ == "__main__":
    asyncio.run(main())
