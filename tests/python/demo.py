# The demo target of ./setup.sh demo: a Python program whose threads wait
# in a few nested calls, for py-bt, bt --python and py-locals to show.
import sys
import threading
import time


class Cache:
    def __init__(self):
        self.entries = {"alpha": 1, "beta": [2, 3]}

    def refresh(self, key, retries=3):
        pending = [key] * retries
        time.sleep(3600)
        return pending


def worker(name):
    Cache().refresh(name)


threads = [threading.Thread(target=worker, args=("job-%d" % i,), name="worker-%d" % i)
           for i in range(2)]
for t in threads:
    t.start()
time.sleep(0.2)
print("ready", flush=True)
sys.stdout.flush()
for t in threads:
    t.join()
