# Python 3.6+ parts of stacks.py (see there): a coroutine driven by asyncio
# and an async generator.  Each blocks in a plain blocking call made inside
# an async def, on the line that records the stack.
import asyncio
import sys
import time

FOREVER = 100000


async def coro_leaf(record):
    time.sleep(record("coroutine") or FOREVER)
    await asyncio.sleep(0)


async def coro_outer(record):
    await coro_leaf(record)


def run_coroutine(record):
    if sys.version_info >= (3, 7):
        asyncio.run(coro_outer(record))
    else:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loop.run_until_complete(coro_outer(record))


async def agen(record):
    yield 1
    time.sleep(record("async_generator") or FOREVER)
    yield 2


async def agen_consumer(record):
    total = 0
    async for x in agen(record):
        total += x
    return total


def run_async_generator(record):
    # Driven by hand, without an event loop: nothing awaits anything that
    # suspends, so one send() runs the consumer to the blocking call.
    coro = agen_consumer(record)
    try:
        coro.send(None)
    except StopIteration:
        pass
