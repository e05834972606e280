"""A TCP delay proxy on 127.0.0.1, to measure tofu-solve where users live: behind network
latency, not on loopback.

Each accepted connection waits ``setup_rtts * rtt`` before it is connected upstream (TCP and
TLS handshakes), then every chunk is delivered ``rtt / 2`` after it arrived, in order, in
both directions. Only loopback addresses are ever used.

    with DelayProxy(("127.0.0.1", 8080), rtt=0.1) as p:
        p.port  # connect here instead
"""

from __future__ import annotations

import asyncio
import threading
import time


class DelayProxy:
    def __init__(self, upstream: tuple[str, int], rtt: float, setup_rtts: int = 2):
        assert upstream[0].startswith("127."), "the proxy only forwards to loopback"
        self.upstream = upstream
        self.rtt = rtt
        self.setup_rtts = setup_rtts
        self.port = 0
        self.connections = 0
        self.bytes_down = 0  # bytes carried from the upstream server to clients
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    async def _pipe(self, reader, writer, down: bool = False):
        queue: asyncio.Queue = asyncio.Queue()

        async def deliver():
            while True:
                due, data = await queue.get()
                if data is None:
                    break
                delay = due - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                writer.write(data)
                await writer.drain()
            writer.close()

        task = asyncio.ensure_future(deliver())
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # retrieved: no noise at exit
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                if down:
                    self.bytes_down += len(data)
                queue.put_nowait((time.monotonic() + self.rtt / 2, data))
        except (ConnectionError, OSError):
            pass
        queue.put_nowait((time.monotonic() + self.rtt / 2, None))
        try:
            await task
        except (ConnectionError, OSError):
            pass

    async def _handle(self, client_r, client_w):
        self.connections += 1
        try:
            await asyncio.sleep(self.setup_rtts * self.rtt)
            try:
                up_r, up_w = await asyncio.open_connection(*self.upstream)
            except OSError:
                client_w.close()
                return
            await asyncio.gather(self._pipe(client_r, up_w), self._pipe(up_r, client_w, down=True))
        except asyncio.CancelledError:  # the proxy is shutting down
            client_w.close()

    def _run(self):
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._server = server
        self._ready.set()
        self._loop.run_forever()

    def __enter__(self):
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc):
        async def shutdown():
            self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._loop.stop()
        asyncio.run_coroutine_threadsafe(shutdown(), self._loop)
        self._thread.join(5)
