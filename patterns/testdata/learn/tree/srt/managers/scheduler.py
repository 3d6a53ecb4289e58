import logging
import time

logger = logging.getLogger(__name__)


class Scheduler:
    """Schedules requests.

    Raises RuntimeError("not a real raise: inside a docstring") never.
    """

    def __init__(self, server_args):
        self.server_args = server_args
        if server_args.max_running_requests is not None and server_args.max_running_requests <= 0:
            raise ValueError(
                f"max_running_requests must be positive, got {server_args.max_running_requests}"
            )
        assert server_args.tp_size > 0, "tp_size must be a positive number of GPUs"

    def event_loop(self):
        while True:
            try:
                self.step()
            except Exception as e:
                logger.exception("Scheduler hit an exception: %s", e)
                raise

    def step(self):
        if self.oom():
            raise RuntimeError(
                "KV cache pool is full. Retract requests. "
                f"#retracted_reqs: {self.retracted}, #new_token_ratio: {self.ratio:.4f}"
            )
        if self.timeout():
            logger.warning(
                "Request %s waited %.1f seconds in the queue", self.rid, time.time()
            )
        # Too generic to learn: no literal run of 12 bytes with two words.
        raise ValueError(f"{self.name}: {self.value}")

    def check(self, x):
        # The same message as in step(): merged into one record.
        if x:
            raise RuntimeError(
                "KV cache pool is full. Retract requests. "
                f"#retracted_reqs: {x}, #new_token_ratio: {x:.4f}"
            )
        raise NotImplementedError

    def fail(self, msg):
        raise ValueError(msg)

    def fatal(self):
        logger.critical("Scheduler watchdog timeout, the process will exit")
