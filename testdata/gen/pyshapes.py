#!/usr/bin/env python3
"""pyshapes: write sglang-shaped failure logs by running real Python code.

What it does
------------
For each log shape (chained-scheduler, thread-transfer-worker,
logger-exception, exception-group, multiprocess-ranks, logging-error,
faulthandler, multiline-message, killed-mid-traceback, keyboard-interrupt;
see the "shapes" section below) it starts a child Python interpreter that
runs a small stand-in for an sglang server (`python -m sglang.launch_server
...`: a main process plus one spawned scheduler process per TP rank), with
stdout and stderr both sent to one file (the `2>&1` order), and saves that
file as testdata/logs/py-<shape>.log. Every traceback, `Exception in
thread`, `--- Logging error ---`, `Fatal Python error` or `Process
SpawnProcess-N:` block in the output is printed by CPython itself, so the
text is exactly what Python 3.11 prints.

The stand-in modules live in this file as source text. In the child they are
served by an import hook (a temporary sitecustomize.py on PYTHONPATH) that
compiles each one with compile(src, "/usr/local/lib/python3.11/dist-packages/
sglang/...", "exec") and registers the source in linecache.cache, so frames,
source lines and the 3.11 `^^^^` marker lines look like a real install. The
C traceback printer that CPython uses for uncaught exceptions does not read
linecache; it finds a missing file by its base name on sys.path, so the hook
also puts a temporary directory holding a copy of each module (by base name)
on sys.path. No path of this script or of the temporary directory appears in
the output. Values (rooms, ports, sizes, request ids) are invented.

Each failure is triggered by the command line (a bad --numa-node or --host),
by the environment (PYSHAPES_FAULT, SGLANG_DISAGG_STAGING_POOL_SIZE_MB), or
happens naturally (KV-cache eviction, SIGINT, SIGKILL); the checks that read
PYSHAPES_FAULT sit on lines that never appear in the output. Requests are
replayed from PYSHAPES_TIMELINE. For the faulthandler shape the hook
registers a stdlib extension module under the names of the native modules a
real sglang process loads (numpy, torch._C, ...), so that CPython prints an
`Extension modules:` line; for killed-mid-traceback it slows stderr down to
one line per 30 ms so that the SIGKILL lands inside the traceback.

How to run
----------
From the repository root, with Python 3.11 (Debian's /usr/bin/python3):

    python3 testdata/gen/pyshapes.py testdata/logs

The child interpreter is /usr/bin/python3 when that is Python 3.11, else this
interpreter; set PYSHAPES_PYTHON to choose another. Each shape is checked
after it is written; the run fails if a shape is missing. Optional arguments
after the directory name select shapes by name, e.g.
`python3 testdata/gen/pyshapes.py testdata/logs faulthandler`.
Standard library only. testdata/gen/README.md describes the outputs.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

SITE = "/usr/local/lib/python3.11/dist-packages"
MAX_LINES = 120


# ---------------------------------------------------------------------------
# Building stand-in module sources
# ---------------------------------------------------------------------------


def src(*blocks):
    """Join code blocks so that each starts at the given line number.

    Each block is (first_line, text) or (first_line, text, indent); gaps are
    filled with empty lines so that tracebacks show sglang-like line numbers.
    """
    out = []
    for block in blocks:
        if len(block) == 3 and isinstance(block[1], int):
            first, indent, text = block
        else:
            first, text = block[0], block[1]
            indent = block[2] if len(block) > 2 else 0
        body = textwrap.dedent(text).strip("\n").splitlines()
        if indent:
            body = [(" " * indent + line) if line.strip() else "" for line in body]
        if len(out) > first - 1:
            raise ValueError(f"block at line {first} overlaps the previous one (ends at {len(out)})")
        out.extend([""] * (first - 1 - len(out)))
        out.extend(body)
    return "\n".join(out) + "\n"


def sglang_init():
    return src((1, '''
        """SGLang: a fast serving framework for large language models."""

        __version__ = "0.5.9"
    '''))


SGLANG_UTILS = src(
    (1, r'''
        """Common utilities."""

        import logging
        import sys
        import traceback

        logger = logging.getLogger(__name__)
    '''),
    (120, r'''
        def get_exception_traceback():
            err_str = traceback.format_exc()
            return err_str
    '''),
)

COMMON = src(
    (1, r'''
        """Common utilities."""

        import logging
        import multiprocessing
        import os
        import signal
        import threading

        logger = logging.getLogger(__name__)

        _SHUTTING_DOWN = threading.Event()


        def is_shutting_down() -> bool:
            return _SHUTTING_DOWN.is_set()
    '''),
    (210, r'''
        def get_bool_env_var(name: str, default: str = "false") -> bool:
            value = os.getenv(name, default)
            return value.lower() in ("true", "1")


        def is_cuda() -> bool:
            return True
    '''),
    (1012, r'''
        def kill_process_tree(parent_pid, include_parent: bool = True, skip_pid: int = None):
            """Kill the process and all its child processes."""
            _SHUTTING_DOWN.set()
            # Remove sigchld handler to avoid spammy logs.
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)

            if parent_pid is None:
                parent_pid = os.getpid()
                include_parent = False

            for child in multiprocessing.active_children():
                if child.pid == skip_pid:
                    continue
                try:
                    os.kill(child.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

            if include_parent:
                try:
                    os.kill(parent_pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
    '''),
    (2327, r'''
        def configure_logger(server_args, prefix: str = ""):
            maybe_ms = ".%(msecs)03d" if get_bool_env_var("SGLANG_LOG_MS") else ""
            format = f"[%(asctime)s{maybe_ms}{prefix}] %(message)s"
            logging.basicConfig(
                level=getattr(logging, server_args.log_level.upper()),
                format=format,
                datefmt="%Y-%m-%d %H:%M:%S",
                force=True,
            )
    '''),
)

NETWORK = src(
    (1, r'''
        """Network utilities."""

        import logging
        import socket

        logger = logging.getLogger(__name__)
    '''),
    (148, r'''
        def try_bind_socket(host: str, port: int) -> None:
            """Bind and release a TCP socket on host:port, trying every address family of host."""
            infos = socket.getaddrinfo(
                host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST
            )
            for family, socktype, proto, _, sockaddr in infos:
                with socket.socket(family, socktype, proto) as sock:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    try:
                        sock.bind(sockaddr)
                    except OSError:
                        continue
                    return
    '''),
    (170, 4, r'''
        raise OSError(
            f"Could not bind port {port} on any configured address family"
        )
    '''),
)


def server_args_src(port_check=False):
    port_call = "self._handle_port_availability()" if port_check else "pass"
    return src(
        (1, r'''
            """The arguments of the server."""

            import argparse
            import dataclasses
            import logging
            import os
            import random
            from typing import List, Optional

            from sglang.srt.utils.network import try_bind_socket

            logger = logging.getLogger(__name__)
        '''),
        (472, r'''
            @dataclasses.dataclass
            class ServerArgs:
                # Model and tokenizer
                model_path: str
                tokenizer_path: Optional[str] = None
                trust_remote_code: bool = False
                dtype: str = "auto"
                kv_cache_dtype: str = "auto"

                # Memory and scheduling
                mem_fraction_static: Optional[float] = None
                chunked_prefill_size: Optional[int] = None
                max_prefill_tokens: int = 16384
                page_size: Optional[int] = None

                # Runtime options
                host: str = "127.0.0.1"
                port: int = 30000
                tp_size: int = 1
                pp_size: int = 1
                dp_size: int = 1
                random_seed: Optional[int] = None
                watchdog_timeout: float = 300
                log_level: str = "info"
                decode_log_interval: int = 40
                attention_backend: Optional[str] = None
                numa_node: Optional[List[int]] = None
                dist_init_addr: Optional[str] = None

                # PD disaggregation
                disaggregation_mode: str = "null"
                disaggregation_transfer_backend: str = "mooncake"
                disaggregation_bootstrap_port: int = 8998
                disaggregation_ib_device: Optional[str] = None
        '''),
        (3640, 4, r'''
                def __post_init__(self):
                    """Orchestrates the handling of various server arguments."""
                    self._run_resolution_pipeline()
        '''),
        (3705, 4, r'''
                def _run_resolution_pipeline(self):
                    # Set missing default values.
                    if self.tokenizer_path is None:
                        self.tokenizer_path = self.model_path
                    if self.random_seed is None:
                        self.random_seed = random.randint(0, 1 << 30)

                    self._handle_model_specific_adjustments()
                    self._handle_gpu_memory_settings()
                    self._handle_attention_backend()
                    @PORT_CALL@
        '''.replace("@PORT_CALL@", port_call)),
        (3790, 4, r'''
                def _handle_model_specific_adjustments(self):
                    from sglang.srt.configs.model_config import ModelConfig

                    model_config = ModelConfig.from_server_args(self)
                    if model_config.is_moe and self.chunked_prefill_size is None:
                        self.chunked_prefill_size = 8192
        '''),
        (3860, 4, r'''
                def _handle_gpu_memory_settings(self):
                    if self.mem_fraction_static is None:
                        self.mem_fraction_static = round(0.88 - 0.006 * (self.tp_size - 1), 3)
                    if self.chunked_prefill_size is None:
                        self.chunked_prefill_size = 8192 if self.tp_size < 4 else 16384
                    if self.page_size is None:
                        self.page_size = 1
        '''),
        (3911, 4, r'''
                def _handle_attention_backend(self):
                    if self.attention_backend is None:
                        self.attention_backend = "fa3"
                        logger.info(
                            f"Attention backend not explicitly specified. Use {self.attention_backend} backend by default."
                        )
        '''),
        (4102, 4, r'''
                def _handle_port_availability(self):
                    port_errors = []
                    try:
                        try_bind_socket(self.host, self.port)
                    except OSError as e:
                        port_errors.append(e)

                    if self.dist_init_addr:
                        dist_host, dist_port = self.dist_init_addr.rsplit(":", 1)
                        dist_errors = []
                        # The rendezvous store and the NCCL port that follows it.
                        for port in (int(dist_port), int(dist_port) + 1):
                            try:
                                try_bind_socket(dist_host, port)
                            except OSError as e:
                                dist_errors.append(e)
                        if dist_errors:
                            port_errors.append(
                                ExceptionGroup(
                                    f"--dist-init-addr {self.dist_init_addr} cannot be served from this node",
                                    dist_errors,
                                )
                            )

                    if port_errors:
                        raise ExceptionGroup(
                            "Some ports required by the server are not available", port_errors
                        )
        '''),
        (4210, 4, r'''
                @staticmethod
                def add_cli_args(parser: argparse.ArgumentParser):
                    parser.add_argument("--model-path", "--model", type=str, required=True)
                    parser.add_argument("--tokenizer-path", type=str, default=ServerArgs.tokenizer_path)
                    parser.add_argument("--trust-remote-code", action="store_true")
                    parser.add_argument("--dtype", type=str, default=ServerArgs.dtype)
                    parser.add_argument("--kv-cache-dtype", type=str, default=ServerArgs.kv_cache_dtype)
                    parser.add_argument("--mem-fraction-static", type=float, default=None)
                    parser.add_argument("--chunked-prefill-size", type=int, default=None)
                    parser.add_argument("--max-prefill-tokens", type=int, default=ServerArgs.max_prefill_tokens)
                    parser.add_argument("--page-size", type=int, default=None)
                    parser.add_argument("--host", type=str, default=ServerArgs.host)
                    parser.add_argument("--port", type=int, default=ServerArgs.port)
                    parser.add_argument("--tp-size", type=int, default=ServerArgs.tp_size)
                    parser.add_argument("--pp-size", type=int, default=ServerArgs.pp_size)
                    parser.add_argument("--dp-size", type=int, default=ServerArgs.dp_size)
                    parser.add_argument("--random-seed", type=int, default=None)
                    parser.add_argument("--watchdog-timeout", type=float, default=ServerArgs.watchdog_timeout)
                    parser.add_argument("--log-level", type=str, default=ServerArgs.log_level)
                    parser.add_argument("--decode-log-interval", type=int, default=ServerArgs.decode_log_interval)
                    parser.add_argument("--attention-backend", type=str, default=None)
                    parser.add_argument("--numa-node", type=int, nargs="+", default=None)
                    parser.add_argument("--dist-init-addr", type=str, default=None)
                    parser.add_argument("--disaggregation-mode", type=str, default="null", choices=["null", "prefill", "decode"])
                    parser.add_argument("--disaggregation-transfer-backend", type=str, default="mooncake")
                    parser.add_argument("--disaggregation-bootstrap-port", type=int, default=8998)
                    parser.add_argument("--disaggregation-ib-device", type=str, default=None)
        '''),
        (9030, 4, r'''
                @classmethod
                def from_cli_args(cls, args: argparse.Namespace):
                    attrs = [attr.name for attr in dataclasses.fields(cls)]
                    return cls(**{attr: getattr(args, attr) for attr in attrs})
        '''),
        (9941, r'''
            def prepare_server_args(argv: List[str]) -> ServerArgs:
                parser = argparse.ArgumentParser(prog="sglang serve")
                ServerArgs.add_cli_args(parser)
                raw_args = parser.parse_args(argv)

                # Set up a temporary logging format so that messages from __post_init__ are formatted.
                logging.basicConfig(
                    level=getattr(logging, raw_args.log_level.upper()),
                    format="[%(asctime)s] %(message)s",
                    datefmt="%Y-%m-%d %H:%M:%S",
                )
                return ServerArgs.from_cli_args(raw_args)
        '''),
    )


LAUNCH_SERVER = src(
    (1, r'''
        """Launch the inference server."""

        import os
        import sys
        import warnings

        from sglang.srt.server_args import ServerArgs, prepare_server_args
        from sglang.srt.utils.common import kill_process_tree
    '''),
    (20, r'''
        def run_server(server_args: ServerArgs):
            """Run the HTTP server."""
            from sglang.srt.entrypoints.http_server import launch_server

            launch_server(server_args)
    '''),
    (55, r'''
        if __name__ == "__main__":
            warnings.warn(
                "'python -m sglang.launch_server' is still supported, but "
                "'sglang serve' is the recommended entrypoint.\n"
                "  Example: sglang serve --model-path <model> [options]"
            )
    '''),
    (67, 4, r'''
        server_args = prepare_server_args(sys.argv[1:])

        try:
            run_server(server_args)
        finally:
            kill_process_tree(os.getpid(), include_parent=False)
    '''),
)

HTTP_SERVER = src(
    (1, r'''
        """
        The entry point of inference server. (SRT = SGLang Runtime)

        This file implements HTTP APIs for the inference engine.
        """

        import asyncio
        import logging
        import os
        import random

        from sglang.srt.entrypoints.engine import _launch_subprocesses
        from sglang.srt.server_args import ServerArgs

        logger = logging.getLogger(__name__)
    '''),
    (2290, r'''
        def _log_access(request_line: str, status: str, client: str = "127.0.0.1"):
            port = random.randint(32768, 60999)
            logger.info(f'INFO:     {client}:{port} - "{request_line} HTTP/1.1" {status}')


        async def _wait_and_warmup(server_args: ServerArgs, tokenizer_manager):
            await asyncio.sleep(0.3)
            _log_access("GET /model_info", "200 OK")

            if server_args.disaggregation_mode == "null":
                await tokenizer_manager.generate_warmup()
                _log_access("POST /generate", "200 OK")
            else:
                logger.info("Start of pd disaggregation warmup ...")
                await asyncio.sleep(0.4)
                _log_access("POST /generate", "200 OK")
                logger.info("End of disaggregation warmup")

            logger.info("The server is fired up and ready to roll!")
    '''),
    (2560, r'''
        def launch_server(server_args: ServerArgs):
            """
            Launch SRT (SGLang Runtime) Server.

            The SRT server consists of an HTTP server and an SRT engine.

            - HTTP server: serves the HTTP API and runs the TokenizerManager.
            - Scheduler (subprocess): receives requests, schedules batches and runs the model.
            """
            tokenizer_manager, scheduler_info = _launch_subprocesses(server_args=server_args)
            asyncio.run(serve_http(server_args, tokenizer_manager))
    '''),
    (2640, r'''
        async def serve_http(server_args: ServerArgs, tokenizer_manager):
            loop = asyncio.get_running_loop()
            tokenizer_manager.install_signal_handlers(loop)

            logger.info(f"INFO:     Started server process [{os.getpid()}]")
            logger.info("INFO:     Waiting for application startup.")
            logger.info("INFO:     Application startup complete.")
            logger.info(
                f"INFO:     Uvicorn running on http://{server_args.host}:{server_args.port} (Press CTRL+C to quit)"
            )
            await _wait_and_warmup(server_args, tokenizer_manager)

            loop.create_task(tokenizer_manager.handle_loop())
            await tokenizer_manager.sigterm_watchdog()
    '''),
)

ENGINE = src(
    (1, r'''
        """
        The entry point of inference server. (SRT = SGLang Runtime)
        """

        import logging
        import multiprocessing as mp
        import os
        import signal
        import threading
        import time
        from typing import List

        from sglang.srt.distributed.parallel_state import CpuGroup
        from sglang.srt.managers.scheduler import run_scheduler_process
        from sglang.srt.managers.tokenizer_manager import TokenizerManager
        from sglang.srt.server_args import ServerArgs
        from sglang.srt.utils.common import configure_logger, kill_process_tree
        from sglang.srt.utils.watchdog import SubprocessWatchdog

        logger = logging.getLogger(__name__)

        # Keep the host-side groups and pipe ends alive for as long as the schedulers run.
        _cpu_groups = []
        _pipe_writers = []
    '''),
    (1060, r'''
        def _launch_subprocesses(server_args: ServerArgs):
            """
            Launch the TokenizerManager in the main process and one Scheduler per GPU in subprocesses.
            """
            # Configure global environment
            configure_logger(server_args)
            _set_envs_and_config(server_args)
            logger.info(f"{server_args=}")

            # Launch the scheduler processes
            scheduler_procs, scheduler_pipe_readers, send_to_scheduler = (
                _launch_scheduler_processes(server_args)
            )

            # Wait for the model to finish loading
            scheduler_infos = _wait_for_scheduler_ready(scheduler_pipe_readers, scheduler_procs)

            SubprocessWatchdog(
                processes=scheduler_procs,
                names=[f"scheduler_{i}" for i in range(len(scheduler_procs))],
            ).start()

            tokenizer_manager = TokenizerManager(server_args, send_to_scheduler)
            return tokenizer_manager, scheduler_infos[0]
    '''),
    (1130, r'''
        def _launch_scheduler_processes(server_args: ServerArgs):
            ctx = mp.get_context("spawn")
            cpu_group = CpuGroup(ctx, server_args.tp_size)
            _cpu_groups.append(cpu_group)
            scheduler_procs = []
            scheduler_pipe_readers = []
            send_to_scheduler = []
            for tp_rank in range(server_args.tp_size):
                reader, writer = ctx.Pipe(duplex=False)
                recv_from_tokenizer, sender = ctx.Pipe(duplex=False)
                gpu_id = tp_rank
                proc = ctx.Process(
                    target=run_scheduler_process,
                    args=(server_args, gpu_id, tp_rank, writer, recv_from_tokenizer, cpu_group),
                )
                proc.start()
                _pipe_writers.append(writer)
                scheduler_procs.append(proc)
                scheduler_pipe_readers.append(reader)
                send_to_scheduler.append(sender)
            return scheduler_procs, scheduler_pipe_readers, send_to_scheduler
    '''),
    (1700, r'''
        def _set_envs_and_config(server_args: ServerArgs):
            # Set global environments
            os.environ["NCCL_CUMEM_ENABLE"] = "0"
            os.environ["NCCL_NVLS_ENABLE"] = "0"
            os.environ["TORCH_NCCL_AVOID_RECORD_STREAMS"] = "1"
            os.environ["CUDA_DEVICE_MAX_CONNECTIONS"] = "4"

            # Set the multiprocessing start method
            mp.set_start_method("spawn", force=True)
    '''),
    (1721, 4, r'''
        # Set up a handler for a child that fails during the launch phase.
        # It is replaced by the TokenizerManager's handler after startup.

        def launch_phase_sigquit_handler(signum, frame):
            logger.error(
                "Received sigquit from a child process. It usually means the child failed."
            )
            kill_process_tree(os.getpid())

        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGQUIT, launch_phase_sigquit_handler)
        else:
            logger.warning(
                "Signal handler is not added because the engine is not in the main thread."
            )
    '''),
    (1778, r'''
        def _scheduler_died_error(rank: int, proc) -> RuntimeError:
            return RuntimeError(
                f"Rank {rank} scheduler died during initialization (exit code: {proc.exitcode}). "
                "If exit code is -9 (SIGKILL), a common cause is the OS OOM killer."
            )


        def _wait_for_scheduler_ready(scheduler_pipe_readers, scheduler_procs):
            scheduler_infos = []
            for i in range(len(scheduler_pipe_readers)):
                while True:
                    if scheduler_pipe_readers[i].poll(timeout=1.0):
                        break
                    if not scheduler_procs[i].is_alive():
    '''),
    (1808, 16, r'''
        raise _scheduler_died_error(i, scheduler_procs[i])
    '''),
    (1809, 8, r'''
        data = scheduler_pipe_readers[i].recv()
        if data["status"] != "ready":
            raise RuntimeError(
                "Initialization failed. Please see the error messages above."
            )
        scheduler_infos.append(data)
    '''),
    (1815, 4, r'''
        return scheduler_infos
    '''),
)

TOKENIZER_MANAGER = src(
    (1, r'''
        """TokenizerManager is a process that tokenizes the text."""

        import asyncio
        import json
        import logging
        import os
        import signal

        from sglang.srt.utils.common import kill_process_tree

        logger = logging.getLogger(__name__)
    '''),
    (260, r'''
        class TokenizerManager:
            """TokenizerManager is a process that tokenizes the text."""

            def __init__(self, server_args, send_to_scheduler):
                self.server_args = server_args
                self.send_to_scheduler = send_to_scheduler
                self.gracefully_exit = False
                self.crash_dump_folder = None
                # Requests replayed by the test harness (a list of events).
                self._replay = json.loads(os.environ.get("PYSHAPES_TIMELINE", "[]"))

            def _send_to_all_ranks(self, obj):
                for sender in self.send_to_scheduler:
                    sender.send(obj)

            async def generate_warmup(self):
                self._send_to_all_ranks(
                    {"rid": "warmup", "input_len": 6, "output_len": 8, "bootstrap_room": None}
                )
                await asyncio.sleep(0.4)
    '''),
    (1480, 4, r'''
            async def handle_loop(self):
                """The event loop that handles requests."""
                for event in self._replay:
                    if "sleep" in event:
                        await asyncio.sleep(event["sleep"])
                    elif "access" in event:
                        logger.info(f"INFO:     {event['access']}")
                    elif "generate" in event:
                        self._send_to_all_ranks(event["generate"])
    '''),
    (2142, 4, r'''
            def install_signal_handlers(self, loop):
                loop.add_signal_handler(signal.SIGQUIT, self.running_phase_sigquit_handler)

            async def sigterm_watchdog(self):
                while not self.gracefully_exit:
                    await asyncio.sleep(5)
    '''),
    (3600, 4, r'''
            def running_phase_sigquit_handler(self, signum=None, frame=None):
                logger.error(
                    f"SIGQUIT received. {signum=}, {frame=}. It usually means one child failed."
                )
                self.dump_requests_before_crash()
                kill_process_tree(os.getpid())

            def dump_requests_before_crash(self):
                if self.crash_dump_folder is None:
                    return
    '''),
)

WATCHDOG = src(
    (1, r'''
        """Watchdogs for the scheduler loop and for the subprocesses."""

        import logging
        import os
        import signal
        import threading
        import time

        from sglang.srt.utils.common import is_shutting_down

        logger = logging.getLogger(__name__)
    '''),
    (60, r'''
        class Watchdog:
            """Soft watchdog: warns when the scheduler loop makes no progress."""

            def __init__(self, debug_name: str, watchdog_timeout: float, get_counter):
                self.debug_name = debug_name
                self.watchdog_timeout = watchdog_timeout
                self.get_counter = get_counter
                self._thread = threading.Thread(
                    target=self._watchdog_thread, name=f"{debug_name}-watchdog", daemon=True
                )
                self._thread.start()

            def _watchdog_thread(self):
                last_counter = self.get_counter()
                last_change = time.perf_counter()
                while True:
                    time.sleep(self.watchdog_timeout / 2)
                    counter = self.get_counter()
                    if counter != last_counter:
                        last_counter, last_change = counter, time.perf_counter()
    '''),
    (180, r'''
        class SubprocessWatchdog:
            def __init__(self, processes, names, interval: float = 0.5):
                self.processes = processes
                self.names = names
                self.interval = interval

            def start(self):
                threading.Thread(
                    target=self._monitor_loop, name="subprocess-watchdog", daemon=True
                ).start()

            def _monitor_loop(self):
                try:
                    while True:
                        if self._check_processes():
                            return
                        time.sleep(self.interval)
                except Exception as e:
                    logger.error(f"SubprocessWatchdog thread crashed: {e}")

            def _check_processes(self) -> bool:
                if is_shutting_down():
                    return True
                for name, proc in zip(self.names, self.processes):
                    if proc.exitcode is not None and proc.exitcode != 0:
                        logger.error(
                            f"Subprocess {name} (pid={proc.pid}) crashed with exit code {proc.exitcode}. Triggering SIGQUIT for cleanup..."
                        )
                        os.kill(os.getpid(), signal.SIGQUIT)
                        return True
                return False
    '''),
)

PARALLEL_STATE = src(
    (1, r'''
        """Distributed state of the scheduler ranks."""

        import logging
        import os

        logger = logging.getLogger(__name__)

        _TP_GROUP = None
    '''),
    (180, r'''
        class CpuGroup:
            """A host-side group of the scheduler ranks: a barrier and small min-reductions."""

            def __init__(self, ctx, world_size: int, slots: int = 16):
                self.world_size = world_size
                self._barrier = ctx.Barrier(world_size)
                self._slots = slots
                self._values = ctx.Array("i", [1] * (world_size * slots), lock=False)

            def barrier(self):
                self._barrier.wait()

            def all_reduce_min(self, rank: int, key: int, value: int) -> int:
                slot = key % self._slots
                self._values[rank * self._slots + slot] = value
                return min(self._values[r * self._slots + slot] for r in range(self.world_size))
    '''),
    (240, r'''
        class GroupCoordinator:
            """Process group of the tensor-parallel ranks."""

            def __init__(self, rank: int, world_size: int, cpu_group: CpuGroup):
                self.rank_in_group = rank
                self.world_size = world_size
                self.cpu_group = cpu_group
                self.ca_comm = None
                if world_size > 1:
                    from sglang.srt.distributed.device_communicators.custom_all_reduce import (
                        CustomAllreduce,
                    )

                    self.ca_comm = CustomAllreduce(rank, world_size, cpu_group)
    '''),
    (512, 4, r'''
            def all_reduce(self, input_):
                # Bypass the function if we are using only 1 GPU.
                if self.world_size == 1:
                    return input_
                if self.ca_comm is not None and self.ca_comm.should_custom_ar(input_):
                    return self.ca_comm.custom_all_reduce(input_)
                self.cpu_group.barrier()
                return input_
    '''),
    (1400, r'''
        def init_model_parallel_group(rank: int, world_size: int, cpu_group: CpuGroup):
            global _TP_GROUP
            _TP_GROUP = GroupCoordinator(rank, world_size, cpu_group)


        def get_tp_group() -> GroupCoordinator:
            assert _TP_GROUP is not None, "tensor model parallel group is not initialized"
            return _TP_GROUP
    '''),
)

COMMUNICATION_OP = src(
    (1, r'''
        """Communication operations across the tensor-parallel ranks."""

        from sglang.srt.distributed.parallel_state import get_tp_group
    '''),
    (10, r'''
        def tensor_model_parallel_all_reduce(input_):
            """All-reduce the input tensor across the model parallel group."""
            return get_tp_group().all_reduce(input_)
    '''),
)

CUSTOM_ALL_REDUCE = src(
    (1, r'''
        """One-shot/two-shot all-reduce through CUDA IPC buffers shared by the ranks."""

        import ctypes
        import logging
        import os
        import time

        logger = logging.getLogger(__name__)
    '''),
    (160, r'''
        class CustomAllreduce:
            _SUPPORTED_WORLD_SIZES = [2, 4, 6, 8]

            def __init__(self, rank: int, world_size: int, cpu_group, max_size: int = 8192 * 1024):
                self.rank = rank
                self.world_size = world_size
                self.cpu_group = cpu_group
                self.max_size = max_size
                # Signal buffers of all ranks, opened through IPC handles.
                self._signal = ctypes.create_string_buffer(64)
                self.meta_ptrs = [ctypes.addressof(self._signal)] * world_size
                self._num_calls = 0
                self._fault = os.environ.get("PYSHAPES_FAULT") == "custom-ar-null-peer" and rank == 0
    '''),
    (318, 4, r'''
            def should_custom_ar(self, inp) -> bool:
                return inp.nbytes <= self.max_size

            def _wait_peer_signals(self):
                for peer, ptr in enumerate(self.meta_ptrs):
                    if peer == self.rank:
                        continue
                    flag = ctypes.string_at(ptr + 16, 8)
                    if not flag:
                        time.sleep(0)
    '''),
    (402, 4, r'''
            def all_reduce(self, inp, *, out=None, registered: bool = False):
                """Performs an out-of-place all reduce."""
                self._num_calls += 1
                if self._fault and self._num_calls > 36:
                    # The peer's signal buffer is unmapped: its IPC handle went stale.
                    self.meta_ptrs[1] = 0
                self._wait_peer_signals()
                self.cpu_group.barrier()
                return inp

            def custom_all_reduce(self, input):
                """The main allreduce API that provides support for cuda graph."""
                return self.all_reduce(input, registered=False)
    '''),
)

TORCH_MODULE = src(
    (1, r'''
        """Base class for all neural network modules."""

        import functools
        from collections import OrderedDict
    '''),
    (380, r'''
        class Module:
            def __init__(self):
                self._modules = OrderedDict()
                self.training = True

            def __setattr__(self, name, value):
                if isinstance(value, Module):
                    self.__dict__.setdefault("_modules", OrderedDict())[name] = value
                object.__setattr__(self, name, value)

            def eval(self):
                self.training = False
                return self

            def named_modules(self, prefix=""):
                yield prefix, self
                for name, child in self._modules.items():
                    yield from child.named_modules(f"{prefix}.{name}" if prefix else name)
    '''),
    (1735, 4, r'''
            def _wrapped_call_impl(self, *args, **kwargs):
                return self._call_impl(*args, **kwargs)
    '''),
    (1745, 4, r'''
            def _call_impl(self, *args, **kwargs):
                forward_call = self.forward
                # If we don't have any hooks, we want to skip the rest of the logic in
                # this function, and just call forward.
                return forward_call(*args, **kwargs)

            __call__ = _wrapped_call_impl
    '''),
)

TORCH_INIT = src((1, r'''
    """Tensors and dynamic neural networks in Python (stand-in)."""

    __version__ = "2.9.1+cu128"


    class Tensor:
        def __init__(self, shape, itemsize=2):
            self.shape = tuple(shape)
            self.nbytes = itemsize
            for dim in self.shape:
                self.nbytes *= dim
'''))

TORCH_NN_INIT = src((1, r'''
    from torch.nn.modules.module import Module
'''))

TORCH_NN_MODULES_INIT = src((1, r'''
    from torch.nn.modules.module import Module
'''))

LINEAR = src(
    (1, r'''
        """Tensor-parallel linear layers."""

        import time

        from torch.nn import Module

        from sglang.srt.distributed.communication_op import tensor_model_parallel_all_reduce
    '''),
    (1380, r'''
        class RowParallelLinear(Module):
            def __init__(self, input_size: int, output_size: int, tp_size: int = 1):
                super().__init__()
                self.input_size_per_partition = input_size // tp_size
                self.output_size = output_size
                self.tp_size = tp_size

            def forward(self, input_):
                output_parallel = input_
                time.sleep(0.0005)
                if self.tp_size > 1:
                    output = tensor_model_parallel_all_reduce(output_parallel)
                else:
                    output = output_parallel
                return output, None
    '''),
)

MODEL_CONFIG = src(
    (1, r'''
        """Model configuration."""

        import logging

        from sglang.srt.utils.hf_transformers_utils import get_config

        logger = logging.getLogger(__name__)
    '''),
    (90, r'''
        class ModelConfig:
            def __init__(self, model_path: str, trust_remote_code: bool = False):
                self.model_path = model_path
                self.hf_config = get_config(model_path, trust_remote_code=trust_remote_code)
                self.architectures = self.hf_config.architectures
                self.is_moe = getattr(self.hf_config, "num_experts", 0) > 0 or "Moe" in self.architectures[0]
                self.num_hidden_layers = self.hf_config.num_hidden_layers
                self.context_len = self.hf_config.max_position_embeddings
    '''),
    (240, 4, r'''
            @staticmethod
            def from_server_args(server_args, model_path: str = None):
                return ModelConfig(
                    model_path=model_path or server_args.model_path,
                    trust_remote_code=server_args.trust_remote_code,
                )
    '''),
)

HF_TRANSFORMERS_UTILS = src(
    (1, r'''
        """Utilities for Huggingface Transformers."""

        import logging
        from typing import Optional

        from transformers import AutoConfig

        logger = logging.getLogger(__name__)
    '''),
    (251, r'''
        def get_config(
            model: str,
            trust_remote_code: bool,
            revision: Optional[str] = None,
            **kwargs,
        ):
            config = AutoConfig.from_pretrained(
                model, trust_remote_code=trust_remote_code, revision=revision, **kwargs
            )
            return config
    '''),
)

TRANSFORMERS_INIT = src((1, r'''
    __version__ = "4.57.1"

    from transformers.models.auto.configuration_auto import AutoConfig
'''))

TRANSFORMERS_HUB = src(
    (1, r'''
        """Hub utilities: resolving files in the local cache."""

        import json
        import os

        HF_HUB_CACHE = "/root/.cache/huggingface/hub"

        # Snapshots present in the local cache: repo id -> (revision, config.json contents).
        _SNAPSHOTS = {
            "Qwen/Qwen3-30B-A3B": ("ad44e777bcd18fa416d9da3bd8f70d33ebb85d39", {
                "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
                "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128,
                "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 6144,
                "max_position_embeddings": 40960, "max_window_layers": 48, "mlp_only_layers": [],
                "model_type": "qwen3_moe", "moe_intermediate_size": 768, "norm_topk_prob": True,
                "num_attention_heads": 32, "num_experts": 128, "num_experts_per_tok": 8,
                "num_hidden_layers": 48, "num_key_value_heads": 4, "output_router_logits": False,
                "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000.0,
                "router_aux_loss_coef": 0.001, "sliding_window": None, "tie_word_embeddings": False,
                "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True,
                "use_sliding_window": False, "vocab_size": 151936}),
            "baidu/ERNIE-4.5-21B-A3B-PT": ("b91ca6f5d2b4b9e0c11d6a1e6a64a3e8c0f1f2d7", {
                "architectures": ["Ernie4_5_MoeForCausalLM"], "hidden_size": 2560, "num_hidden_layers": 28,
                "num_attention_heads": 20, "num_key_value_heads": 4, "head_dim": 128, "moe_num_experts": 64,
                "num_experts": 64, "max_position_embeddings": 131072, "torch_dtype": "bfloat16",
                "vocab_size": 103424}),
            "Qwen/Qwen2.5-7B-Instruct": ("a09a35458c702b33eeacc393d103063234e8bc28", {
                "architectures": ["Qwen2ForCausalLM"], "hidden_size": 3584, "num_hidden_layers": 28,
                "num_attention_heads": 28, "num_key_value_heads": 4, "head_dim": 128, "num_experts": 0,
                "max_position_embeddings": 32768, "torch_dtype": "bfloat16", "vocab_size": 152064}),
            "Qwen/Qwen2.5-32B-Instruct": ("5ede1c97bbab6ce5cda5812749b4c0bdf79b18dd", {
                "architectures": ["Qwen2ForCausalLM"], "hidden_size": 5120, "num_hidden_layers": 64,
                "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "num_experts": 0,
                "max_position_embeddings": 32768, "torch_dtype": "bfloat16", "vocab_size": 152064}),
            "meta-llama/Llama-3.3-70B-Instruct": ("6f6073b423013f6a7d4d9f39144961bfbfbc386b", {
                "architectures": ["LlamaForCausalLM"], "hidden_size": 8192, "num_hidden_layers": 80,
                "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "num_experts": 0,
                "max_position_embeddings": 131072, "torch_dtype": "bfloat16", "vocab_size": 128256}),
            "Qwen/Qwen3-0.6B": ("c1899de289a04d12100db370d81485cdf75e47ca", {
                "architectures": ["Qwen3ForCausalLM"], "hidden_size": 1024, "num_hidden_layers": 28,
                "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "num_experts": 0,
                "max_position_embeddings": 40960, "torch_dtype": "bfloat16", "vocab_size": 151936}),
            "Qwen/Qwen3-8B": ("b968826d9c46dd6066d109eabc6255188de91218", {
                "architectures": ["Qwen3ForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 36,
                "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "num_experts": 0,
                "max_position_embeddings": 40960, "torch_dtype": "bfloat16", "vocab_size": 151936}),
        }
    '''),
    (320, r'''
        def cached_file(path_or_repo_id: str, filename: str, **kwargs) -> str:
            revision, _ = _SNAPSHOTS[path_or_repo_id]
            repo_dir = "models--" + path_or_repo_id.replace("/", "--")
            return os.path.join(HF_HUB_CACHE, repo_dir, "snapshots", revision, filename)


        def read_cached_text(resolved_file: str) -> str:
            repo_dir = resolved_file[len(HF_HUB_CACHE) + 1 :].split("/")[0]
            repo_id = repo_dir[len("models--") :].replace("--", "/")
            text = json.dumps(_SNAPSHOTS[repo_id][1], indent=2, sort_keys=True) + "\n"
            if os.environ.get("PYSHAPES_FAULT") == "truncated-config-json":
                # The download was interrupted: the file ends part way.
                text = text[: text.index('"num_experts_per_tok"') + 14]
            return text
    '''),
)

TRANSFORMERS_CONFIGURATION_UTILS = src(
    (1, r'''
        """Configuration base class and utilities."""

        import json
        import logging
        import os
        from types import SimpleNamespace

        from transformers.utils.hub import cached_file, read_cached_text

        logger = logging.getLogger(__name__)

        CONFIG_NAME = "config.json"
    '''),
    (62, r'''
        class PretrainedConfig(SimpleNamespace):
            model_type: str = ""
    '''),
    (600, 4, r'''
            @classmethod
            def get_config_dict(cls, pretrained_model_name_or_path, **kwargs):
                original_kwargs = dict(kwargs)
                # Get config dict associated with the base config file
                config_dict, kwargs = cls._get_config_dict(pretrained_model_name_or_path, **kwargs)
                if config_dict is None:
                    return {}, kwargs
                return config_dict, kwargs
    '''),
    (650, 4, r'''
            @classmethod
            def _get_config_dict(cls, pretrained_model_name_or_path, **kwargs):
                revision = kwargs.pop("revision", None)
                trust_remote_code = kwargs.pop("trust_remote_code", None)
                configuration_file = kwargs.pop("_configuration_file", CONFIG_NAME)

                pretrained_model_name_or_path = str(pretrained_model_name_or_path)
                if os.path.isdir(pretrained_model_name_or_path):
                    resolved_config_file = os.path.join(pretrained_model_name_or_path, configuration_file)
                else:
                    resolved_config_file = cached_file(
                        pretrained_model_name_or_path,
                        configuration_file,
                        revision=revision,
                    )

                try:
                    # Load config dict
                    config_dict = cls._dict_from_json_file(resolved_config_file)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    raise EnvironmentError(
                        f"It looks like the config file at '{resolved_config_file}' is not a valid JSON file."
                    )

                logger.debug(f"loading configuration file {resolved_config_file}")
                return config_dict, kwargs
    '''),
    (760, 4, r'''
            @classmethod
            def from_dict(cls, config_dict, **kwargs):
                return cls(**config_dict)

            @classmethod
            def _dict_from_json_file(cls, json_file):
                text = read_cached_text(json_file)
                return json.loads(text)
    '''),
)

TRANSFORMERS_CONFIGURATION_AUTO = src(
    (1, r'''
        """Auto Config class."""

        import logging

        from transformers.configuration_utils import PretrainedConfig

        logger = logging.getLogger(__name__)
    '''),
    (1180, r'''
        class AutoConfig:
            r"""
            This is a generic configuration class that will be instantiated as one of the configuration
            classes of the library when created with the [`~AutoConfig.from_pretrained`] class method.
            """

            @classmethod
            def from_pretrained(cls, pretrained_model_name_or_path, **kwargs):
                kwargs["_from_auto"] = True
                kwargs["name_or_path"] = pretrained_model_name_or_path
                trust_remote_code = kwargs.pop("trust_remote_code", None)
                code_revision = kwargs.pop("code_revision", None)

                config_dict, unused_kwargs = PretrainedConfig.get_config_dict(pretrained_model_name_or_path, **kwargs)
                return PretrainedConfig.from_dict(config_dict, **unused_kwargs)
    '''),
)

SAMPLER = src(
    (1, r'''
        import logging

        from sglang.srt.utils.common import is_cuda

        if is_cuda():
            from sgl_kernel import (
                min_p_sampling_from_probs,
                top_k_renorm_prob,
                top_k_top_p_sampling_from_probs,
                top_p_renorm_prob,
            )

        logger = logging.getLogger(__name__)
    '''),
    (40, r'''
        class Sampler:
            def __init__(self):
                self.use_nan_detection = False
    '''),
)

SGL_KERNEL_INIT = src((1, r'''
    import ctypes
    import os
    import platform

    from sgl_kernel.load_utils import _load_architecture_specific_ops

    # Initialize the ops library based on the current GPU
    common_ops = _load_architecture_specific_ops()

    min_p_sampling_from_probs = common_ops.min_p_sampling_from_probs
    top_k_renorm_prob = common_ops.top_k_renorm_prob
    top_k_top_p_sampling_from_probs = common_ops.top_k_top_p_sampling_from_probs
    top_p_renorm_prob = common_ops.top_p_renorm_prob
'''))

SGL_KERNEL_LOAD_UTILS = src(
    (1, r'''
        import glob
        import importlib.util
        import logging
        from pathlib import Path
        from typing import List

        logger = logging.getLogger(__name__)


        def _get_compute_capability():
            """Compute capability of the current GPU as an integer (major * 10 + minor)."""
            return 90
    '''),
    (40, r'''
        def _compiled_first(files):
            return sorted(files, key=lambda f: not f.endswith((".so", ".pyd")))


        def _load_architecture_specific_ops():
            """Load the common_ops library built for the GPU architecture of this machine."""
            compute_capability = _get_compute_capability()
            package_dir = Path(__file__).parent

            if compute_capability == 90:
                variant_dir = "sm90"
                variant_name = "SM90 (Hopper, fast math)"
            elif compute_capability is not None:
                variant_dir = "sm100"
                variant_name = f"SM{compute_capability} (precise math)"
            else:
                variant_dir = "sm100"
                variant_name = "CPU/no GPU detected (precise math)"

            errors: List[Exception] = []

            variant_pattern = str(package_dir / variant_dir / "common_ops.*")
            variant_files = _compiled_first(glob.glob(variant_pattern))
            for path in variant_files[:1]:
                try:
                    spec = importlib.util.spec_from_file_location("common_ops", path)
                    module = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(module)
                    return module
                except Exception as e:
                    errors.append(e)

            fallback_pattern = str(package_dir / "common_ops.*")
            fallback_files = _compiled_first(glob.glob(fallback_pattern))
            for path in fallback_files[:1]:
                try:
                    spec = importlib.util.spec_from_file_location("common_ops", path)
                    module = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(module)
                    return module
                except Exception as e:
                    errors.append(e)

            try:
                import common_ops

                return common_ops
            except ImportError as e:
                errors.append(e)

            details = "\n".join(f"- {type(e).__name__}: {e}" for e in errors)
            message = f"""
        [sgl_kernel] CRITICAL: Could not load any common_ops library!

        Attempted locations:
        1. Architecture-specific pattern: {variant_pattern} - found files: {variant_files}
        2. Fallback pattern: {fallback_pattern} - found files: {fallback_files}
        3. Standard Python import: common_ops - failed

        GPU Info:
        - Compute capability: {compute_capability}
        - Expected variant: {variant_name}

        Please ensure sgl_kernel is properly installed with:
        pip install --upgrade sgl_kernel

        Error details from previous import attempts:
        {details}
        """
            logger.debug(message)
            raise ImportError(message)
    '''),
)

COMMON_OPS = src((1, r'''
    """Native kernels of sgl_kernel."""


    def min_p_sampling_from_probs(*args, **kwargs):
        pass


    def top_k_renorm_prob(*args, **kwargs):
        pass


    def top_k_top_p_sampling_from_probs(*args, **kwargs):
        pass


    def top_p_renorm_prob(*args, **kwargs):
        pass
'''))

TP_WORKER = src(
    (1, r'''
        """A tensor parallel worker."""

        import logging

        from sglang.srt.configs.model_config import ModelConfig
        from sglang.srt.model_executor.model_runner import ModelRunner

        logger = logging.getLogger(__name__)
    '''),
    (236, r'''
        class TpModelWorker:
            """A tensor parallel model worker."""

            def __init__(self, server_args, gpu_id: int, tp_rank: int, cpu_group):
                self.server_args = server_args
                self.tp_rank = tp_rank
                self.model_config = ModelConfig.from_server_args(server_args)

                # Init model and tokenizer
                self._model_runner = ModelRunner(
                    model_config=self.model_config,
                    mem_fraction_static=server_args.mem_fraction_static,
                    gpu_id=gpu_id,
                    tp_rank=tp_rank,
                    tp_size=server_args.tp_size,
                    server_args=server_args,
                    cpu_group=cpu_group,
                )

            @property
            def model_runner(self) -> ModelRunner:
                return self._model_runner
    '''),
    (420, 4, r'''
            def forward_batch_generation(self, batch):
                logits_output = self.model_runner.forward(batch)
                return logits_output
    '''),
)

MODEL_RUNNER = src(
    (1, r'''
        """ModelRunner runs the forward passes of the models."""

        import logging
        import os
        import time

        from torch import Tensor

        from sglang.srt.distributed.parallel_state import init_model_parallel_group
        from sglang.srt.layers.sampler import Sampler
        from sglang.srt.mem_cache.memory_pool import TokenToKVPoolAllocator
        from sglang.srt.model_loader.loader import get_model_loader

        logger = logging.getLogger(__name__)

        GPU_TOTAL_GB = 79.19
    '''),
    (470, r'''
        class ModelRunner:
            """ModelRunner runs the forward passes of the models."""

            def __init__(
                self,
                model_config,
                mem_fraction_static: float,
                gpu_id: int,
                tp_rank: int,
                tp_size: int,
                server_args,
                cpu_group,
            ):
                # Parse args
                self.model_config = model_config
                self.mem_fraction_static = mem_fraction_static
                self.gpu_id = gpu_id
                self.tp_rank = tp_rank
                self.tp_size = tp_size
                self.server_args = server_args
                self.cpu_group = cpu_group
                self.avail_mem = GPU_TOTAL_GB - 0.62 - 0.01 * (gpu_id % 3)
                self.initialize()
    '''),
    (640, 4, r'''
            def initialize(self):
                # Init torch distributed
                self.init_torch_distributed()

                # Load the model
                self.sampler = Sampler()
                self.load_model()

                # Init memory pool and attention backends
                self.init_memory_pool()
    '''),
    (700, 4, r'''
            def init_torch_distributed(self):
                logger.info("Init torch distributed begin.")
                tic = time.perf_counter()
                init_model_parallel_group(self.tp_rank, self.tp_size, self.cpu_group)
                time.sleep(0.9 + 0.02 * self.tp_rank)
                self.cpu_group.barrier()
                elapsed = time.perf_counter() - tic
                mem_usage = 0.41 if self.tp_size == 1 else 0.62 + 0.01 * (self.tp_rank % 2)
                self.avail_mem -= mem_usage
                logger.info(
                    f"Init torch distributed ends. elapsed={elapsed:.2f} s, mem usage={mem_usage:.2f} GB"
                )
    '''),
    (1090, 4, r'''
            def load_model(self):
                tic = time.perf_counter()
                before_avail_memory = self.avail_mem
                logger.info(f"Load weight begin. avail mem={before_avail_memory:.2f} GB")

                self.loader = get_model_loader(self.server_args)
                time.sleep(1.1 + 0.03 * self.tp_rank)
                try:
                    self.model = self.loader.load_model(
                        model_config=self.model_config,
                        tp_rank=self.tp_rank,
                        tp_size=self.tp_size,
                    )
                except KeyError as e:
                    raise RuntimeError(
                        f"Failed to load the weights of {self.model_config.architectures[0]} "
                        f"on TP rank {self.tp_rank}: {e}. Check that the checkpoint "
                        f"matches --tp-size {self.tp_size}."
                    ) from e

                weight_gb = self.model.weight_bytes() / self.tp_size / 1024**3
                self.avail_mem = before_avail_memory - weight_gb
                elapsed = time.perf_counter() - tic
                logger.info(
                    f"Load weight end. elapsed={elapsed:.2f} s, type={type(self.model).__name__}, "
                    f"dtype=torch.bfloat16, avail mem={self.avail_mem:.2f} GB, mem usage={weight_gb:.2f} GB."
                )
    '''),
    (1688, 4, r'''
            def init_memory_pool(self):
                # The available memory is all-reduced (min) over the ranks.
                self.cpu_group.barrier()
                cfg = self.model_config.hf_config
                kv_heads = max(1, cfg.num_key_value_heads // self.tp_size)
                bytes_per_token = cfg.num_hidden_layers * kv_heads * cfg.head_dim * 2 * 2
                rest_gb = self.avail_mem - GPU_TOTAL_GB * (1 - self.mem_fraction_static)
                self.max_total_num_tokens = int(rest_gb * 1024**3 / bytes_per_token) // 64 * 64
                kv_gb = self.max_total_num_tokens * bytes_per_token / 2 / 1024**3
                self.token_to_kv_pool_allocator = TokenToKVPoolAllocator(self.max_total_num_tokens)
                self.avail_mem -= 2 * kv_gb
                if self.tp_rank == 0:
                    logger.info(
                        f"KV Cache is allocated. dtype: torch.bfloat16, #tokens: {self.max_total_num_tokens}, "
                        f"K size: {kv_gb:.2f} GB, V size: {kv_gb:.2f} GB"
                    )
                    logger.info(f"Memory pool end. avail mem={self.avail_mem:.2f} GB")
    '''),
    (2410, 4, r'''
            def forward(self, batch):
                if batch.forward_mode == "extend":
                    return self.forward_extend(batch)
                return self.forward_decode(batch)

            def forward_extend(self, batch):
                time.sleep(min(0.05, 2e-6 * batch.num_tokens))
                hidden_states = Tensor((batch.num_tokens, self.model_config.hf_config.hidden_size))
                return self.model.forward(batch.input_ids, batch.positions, hidden_states)

            def forward_decode(self, batch):
                hidden_states = Tensor((len(batch.reqs), self.model_config.hf_config.hidden_size))
                return self.model.forward(batch.input_ids, batch.positions, hidden_states)
    '''),
)

MEMORY_POOL = src(
    (1, r'''
        """
        Memory pool.

        SGLang has two levels of memory pool. ReqToTokenPool maps a request to its token locations.
        TokenToKVPoolAllocator manages the indices to the KV cache data.
        """

        import logging

        logger = logging.getLogger(__name__)
    '''),
    (1520, r'''
        class TokenToKVPoolAllocator:
            """An allocator managing the indices to the KV cache data."""

            def __init__(self, size: int):
                self.size = size
                self.used = 0

            def available_size(self) -> int:
                return self.size - self.used

            def alloc(self, need_size: int):
                self.used += need_size

            def free(self, num_tokens: int):
                self.used = max(0, self.used - num_tokens)
    '''),
)

RADIX_CACHE = src(
    (1, r'''
        """The radix tree data structure for managing the KV cache."""

        import logging

        logger = logging.getLogger(__name__)
    '''),
    (110, r'''
        class RadixCache:
            def __init__(self, token_to_kv_pool_allocator, page_size: int = 1, log_evictions: bool = False):
                self.token_to_kv_pool_allocator = token_to_kv_pool_allocator
                self.page_size = page_size
                self.log_evictions = log_evictions
                self.evictable_size_ = 0
                self.protected_size_ = 0

            def cache_finished_req(self, num_tokens: int):
                self.evictable_size_ += num_tokens
    '''),
    (520, 4, r'''
            def evict(self, num_tokens: int):
                needed = num_tokens - self.token_to_kv_pool_allocator.available_size() + num_tokens // 16
                num_evicted = min(self.evictable_size_, needed)
                num_evicted = (num_evicted + self.page_size - 1) // self.page_size * self.page_size
                self.token_to_kv_pool_allocator.free(num_evicted)
                self.evictable_size_ -= num_evicted

                if self.log_evictions:
                    logger.warning(
                        "Evicted %d tokens from the radix cache to admit %d new tokens "
                        "(#evictable: %d, #protected: %d)",
                        num_evicted,
                        num_tokens,
                        self.evictable_size_,
                    )
                return num_evicted
    '''),
)

LOADER = src(
    (1, r'''
        """Model loaders."""

        import importlib
        import logging
        import os

        logger = logging.getLogger(__name__)

        _MODEL_REGISTRY = {
            "Ernie4_5_MoeForCausalLM": "sglang.srt.models.ernie4",
            "Qwen3MoeForCausalLM": "sglang.srt.models.qwen3_moe",
            "Qwen3ForCausalLM": "sglang.srt.models.qwen3",
            "Qwen2ForCausalLM": "sglang.srt.models.qwen2",
            "LlamaForCausalLM": "sglang.srt.models.llama",
        }
    '''),
    (200, r'''
        def get_model_architecture(model_config):
            architecture = model_config.architectures[0]
            module = importlib.import_module(_MODEL_REGISTRY[architecture])
            return getattr(module, architecture), architecture


        def _initialize_model(model_config, tp_size: int):
            model_class, _ = get_model_architecture(model_config)
            return model_class(model_config.hf_config, tp_size=tp_size)
    '''),
    (700, r'''
        class DefaultModelLoader:
            """Model loader that can load different file types from disk."""

            def __init__(self, server_args):
                self.server_args = server_args

            def _get_all_weights(self, model, tp_rank: int):
                names = model.checkpoint_weight_names()
                if os.environ.get("PYSHAPES_FAULT") == "ernie-extra-param" and tp_rank == 1:
                    names.insert(len(names) // 2, "model.layers.27.mlp.moe_statics.e_score_correction_bias")
                for name in names:
                    yield name, None

            def load_model(self, *, model_config, tp_rank: int = 0, tp_size: int = 1):
                model = _initialize_model(model_config, tp_size)
                self.load_weights_and_postprocess(
                    model, self._get_all_weights(model, tp_rank), target_device="cuda"
                )
                return model.eval()

            @staticmethod
            def load_weights_and_postprocess(model, weights, target_device):
                model.load_weights(weights)

                for _, module in model.named_modules():
                    quant_method = getattr(module, "quant_method", None)
                    if quant_method is not None:
                        quant_method.process_weights_after_loading(module)
    '''),
    (2900, r'''
        def get_model_loader(server_args):
            """Get a model loader based on the load format."""
            return DefaultModelLoader(server_args)
    '''),
)


def model_module(module_doc, classes):
    """A stand-in model file: each class is (name, layers_attr)."""
    blocks = [(1, f'''
        """{module_doc}"""

        import logging

        from torch.nn import Module

        from sglang.srt.layers.linear import RowParallelLinear

        logger = logging.getLogger(__name__)
    ''')]
    blocks.append((60, r'''
        class DecoderMLP(Module):
            def __init__(self, hidden_size: int, tp_size: int):
                super().__init__()
                self.down_proj = RowParallelLinear(hidden_size * 4, hidden_size, tp_size=tp_size)

            def forward(self, x):
                x, _ = self.down_proj(x)
                return x


        class DecoderLayer(Module):
            def __init__(self, layer_id: int, hidden_size: int, tp_size: int):
                super().__init__()
                self.layer_id = layer_id
                self.mlp = DecoderMLP(hidden_size, tp_size)

            def forward(self, positions, hidden_states, residual):
                hidden_states = self.mlp(hidden_states)
                return hidden_states, residual


        class DecoderModel(Module):
            def __init__(self, config, tp_size: int):
                super().__init__()
                self.layers = [DecoderLayer(i, config.hidden_size, tp_size) for i in range(4)]

            def forward(self, input_ids, positions, hidden_states):
                residual = None
                for i in range(len(self.layers)):
                    layer = self.layers[i]
                    hidden_states, residual = layer(positions, hidden_states, residual)
                return hidden_states
    '''))
    line = 300
    for name in classes:
        blocks.append((line, f'''
            class {name}(Module):
                def __init__(self, config, tp_size: int = 1):
                    super().__init__()
                    self.config = config
                    self.tp_size = tp_size
                    self.model = DecoderModel(config, tp_size)

                def forward(self, input_ids, positions, hidden_states):
                    hidden_states = self.model(input_ids, positions, hidden_states)
                    return hidden_states

                def weight_bytes(self) -> int:
                    c = self.config
                    per_layer = 12 * c.hidden_size * c.hidden_size * max(1, c.num_experts // 16)
                    return 2 * (c.num_hidden_layers * per_layer + 2 * c.vocab_size * c.hidden_size)

                def checkpoint_weight_names(self):
                    names = ["model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"]
                    for i in range(self.config.num_hidden_layers):
                        names.append(f"model.layers.{{i}}.self_attn.qkv_proj.weight")
                        names.append(f"model.layers.{{i}}.mlp.down_proj.weight")
                    return names

                def load_weights(self, weights):
                    params_dict = dict.fromkeys(self.checkpoint_weight_names())
                    for name, loaded_weight in weights:
                        param = params_dict[name]
                    return set(params_dict)
        '''))
        line += 100
    return src(*blocks)


ERNIE4 = src(
    (1, r'''
        """Inference-only ERNIE-4.5 model compatible with baidu/ERNIE-4.5-*-PT weights."""

        import logging

        from torch.nn import Module

        logger = logging.getLogger(__name__)
    '''),
    (290, r'''
        class Ernie4_5_MoeForCausalLM(Module):
            def __init__(self, config, tp_size: int = 1):
                super().__init__()
                self.config = config
                self.tp_size = tp_size

            def weight_bytes(self) -> int:
                return 43_600_000_000

            def checkpoint_weight_names(self):
                names = ["model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"]
                for i in range(self.config.num_hidden_layers):
                    for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
                        names.append(f"model.layers.{i}.self_attn.{proj}.weight")
                    names.append(f"model.layers.{i}.mlp.gate.weight")
                    names.append(f"model.layers.{i}.mlp.down_proj.weight")
                return names

            def named_parameters(self):
                for i in range(self.config.num_hidden_layers):
                    yield f"model.layers.{i}.self_attn.qkv_proj.weight", None
                    yield f"model.layers.{i}.self_attn.o_proj.weight", None
                    yield f"model.layers.{i}.mlp.gate.weight", None
                    yield f"model.layers.{i}.mlp.down_proj.weight", None
                for name in ("model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"):
                    yield name, None
    '''),
    (341, 4, r'''
            def load_weights(self, weights):
                stacked_params_mapping = [
                    # (param_name, shard_name, shard_id)
                    ("qkv_proj", "q_proj", "q"),
                    ("qkv_proj", "k_proj", "k"),
                    ("qkv_proj", "v_proj", "v"),
                    ("gate_up_proj", "gate_proj", 0),
                    ("gate_up_proj", "up_proj", 1),
                ]
                params_dict = dict(self.named_parameters())
                loaded_params = set()
                for name, loaded_weight in weights:
                    if "rotary_emb.inv_freq" in name:
                        continue
                    for param_name, weight_name, shard_id in stacked_params_mapping:
                        if weight_name not in name:
                            continue
                        name = name.replace(weight_name, param_name)
                        break
                    # Skip loading extra bias for GPTQ models.
                    if name.endswith(".bias") and name not in params_dict:
                        continue
                    if "mtp" in name:
                        continue
                    if name not in params_dict:
                        raise KeyError(f"Parameter '{name}' not found in model.")
                    loaded_params.add(name)
                return loaded_params
    '''),
)

PREFILL = src(
    (1, r'''
        """
        Life cycle of a request in the prefill server

        1. Bootstrap Queue: initialize a sender for each request.
        2. Waiting Queue: run the prefill forward.
        3. Inflight Queue: poll the sender until the KV cache has been transferred.
        """

        import logging
        import os

        from sglang.srt.disaggregation.base import KVPoll

        logger = logging.getLogger(__name__)
    '''),
    (120, r'''
        class PrefillBootstrapQueue:
            """Store the requests in bootstrapping."""

            def __init__(self, server_args, tp_rank: int, gpu_id: int, cpu_group):
                self.server_args = server_args
                self.tp_rank = tp_rank
                self.gpu_id = gpu_id
                self.cpu_group = cpu_group
                self.kv_manager = self._init_kv_manager()

            def _init_kv_manager(self):
                backend = self.server_args.disaggregation_transfer_backend
                if backend == "mooncake":
                    from sglang.srt.disaggregation.mooncake.conn import MooncakeKVManager as kv_manager_class
                elif backend == "nixl":
                    from sglang.srt.disaggregation.nixl.conn import NixlKVManager as kv_manager_class
                else:
                    raise ValueError(f"Unsupported transfer backend: {backend}")
                return kv_manager_class(self.server_args, self.tp_rank, self.gpu_id, self.cpu_group)
    '''),
    (600, r'''
        class SchedulerDisaggregationPrefillMixin:
            """Mixin for Scheduler to handle disaggregation prefill."""

            def event_loop_normal_disagg_prefill(self):
                """A normal scheduler loop for prefill worker in disaggregation mode."""
                while True:
                    recv_reqs = self.recv_requests()
                    self.process_input_requests(recv_reqs)
                    batch = self.get_next_batch_to_run()
                    self.cur_batch = batch
                    if batch:
                        result = self.run_batch(batch)
                        self.process_batch_result_disagg_prefill(batch, result)
                    if len(self.disagg_prefill_inflight_queue) > 0:
                        self.process_disagg_prefill_inflight_queue()

            def process_batch_result_disagg_prefill(self, batch, result):
                for req in batch.reqs:
                    self.tree_cache.cache_finished_req(req.input_len)
                    self.send_kv_chunk(req, last_chunk=True)
                    self.disagg_prefill_inflight_queue.append(req)

            def send_kv_chunk(self, req, last_chunk: bool = False):
                page_size = self.server_args.page_size
                num_pages = (req.input_len + page_size - 1) // page_size
                req.disagg_kv_sender = self.disagg_prefill_bootstrap_queue.kv_manager.create_sender(req)
                req.disagg_kv_sender.send(list(range(num_pages)), last_chunk)
    '''),
    (930, 4, r'''
            def process_disagg_prefill_inflight_queue(self):
                undone_reqs = []
                for req in self.disagg_prefill_inflight_queue:
                    poll = self.cpu_group.all_reduce_min(
                        self.tp_rank, req.bootstrap_room, int(req.disagg_kv_sender.poll())
                    )
                    if poll in [KVPoll.WaitingForInput, KVPoll.Transferring, KVPoll.Bootstrapping]:
                        undone_reqs.append(req)
                    elif poll == KVPoll.Success:
                        self.tree_cache.cache_finished_req(0)
                    elif poll == KVPoll.Failed:
                        error_message = f"Prefill transfer failed for request rank={self.tp_rank} {req.rid=} {req.bootstrap_room=}"
                        try:
                            req.disagg_kv_sender.failure_exception()
                        except Exception as e:
                            error_message += f" with exception {e}"
                        logger.warning(error_message)
                self.disagg_prefill_inflight_queue = undone_reqs
    '''),
)

DISAGG_BASE = src((1, r'''
    """Base classes of the KV transfer backends."""

    import enum


    class KVPoll(enum.IntEnum):
        Failed = 0
        Bootstrapping = 1
        WaitingForInput = 2
        Transferring = 3
        Success = 4


    class KVTransferError(Exception):
        def __init__(self, bootstrap_room: int, failure_reason: str):
            super().__init__(failure_reason)
            self.bootstrap_room = bootstrap_room
            self.failure_reason = failure_reason

        def __str__(self):
            return f"KVTransferError(bootstrap_room={self.bootstrap_room}): {self.failure_reason}"


    class KVSender:
        def __init__(self, mgr, bootstrap_room: int):
            self.kv_mgr = mgr
            self.bootstrap_room = bootstrap_room

        def send(self, kv_indices, last_chunk: bool):
            self.kv_mgr.add_transfer_request(self.bootstrap_room, kv_indices, last_chunk)

        def poll(self) -> KVPoll:
            return self.kv_mgr.check_status(self.bootstrap_room)

        def failure_exception(self):
            with self.kv_mgr.failure_lock:
                failure_reason = self.kv_mgr.failure_records.pop(
                    self.bootstrap_room, "Failed due to an unknown reason from another rank"
                )
            raise KVTransferError(self.bootstrap_room, failure_reason)
'''))

MOONCAKE_CONN = src(
    (1, r'''
        import concurrent.futures
        import dataclasses
        import logging
        import os
        import queue
        import threading
        from typing import List

        from sglang.srt.disaggregation.base import KVPoll, KVSender

        logger = logging.getLogger(__name__)


        @dataclasses.dataclass
        class TransferKVChunk:
            room: int
            prefill_kv_indices: List[int]
            is_last: bool


        @dataclasses.dataclass
        class TransferInfo:
            room: int
            mooncake_session_id: str
            dst_staging_ptr: int
            dst_kv_indices: List[int]


        class MooncakeTransferEngine:
            def __init__(self, hostname: str, gpu_id: int, ib_device: str):
                self.hostname = hostname
                self.gpu_id = gpu_id
                self.ib_device = ib_device
                self.remote_buffers = {}

            def batch_transfer_sync(self, session_id, src_ptrs, dst_ptrs, lengths) -> int:
                registered = self.remote_buffers.get(session_id, ())
                for dst, length in zip(dst_ptrs, lengths):
                    if not any(base <= dst and dst + length <= base + size for base, size in registered):
                        return -1
                return 0


        class StagingBuffer:
            def __init__(self, ptr: int, size: int):
                self._ptr = ptr
                self.size = size

            def get_ptr(self) -> int:
                return self._ptr
    '''),
    (180, r'''
        class MooncakeKVManager:
            def __init__(self, server_args, tp_rank: int, gpu_id: int, cpu_group):
                self.server_args = server_args
                self.attn_tp_rank = tp_rank
                self.attn_tp_size = server_args.tp_size
                self.pp_rank = 0
                self.pp_size = server_args.pp_size
                self.bootstrap_port = server_args.disaggregation_bootstrap_port
                self.page_bytes = 131072
                self.engine = MooncakeTransferEngine("10.42.7.18", gpu_id, server_args.disaggregation_ib_device)
                self.staging_buffer = StagingBuffer(0x7F3A1C000000 + gpu_id * 0x4000000, 64 << 20)
                self.enable_staging = True
                self.transfer_infos = {}
                self.request_status = {}
                self.failure_records = {}
                self.failure_lock = threading.Lock()
                self.transfer_queue = queue.Queue()
                self.executor = concurrent.futures.ThreadPoolExecutor(4)
                threading.Thread(
                    target=self.transfer_worker, args=(self.transfer_queue, self.executor), daemon=True
                ).start()

            def create_sender(self, req):
                # Bootstrap: the decode server registers its session and staging buffer.
                session_id = "10.42.9.31:17315"
                dst_staging_ptr = 0x7F12E4000000
                registered_size = 32 << 20
                if os.environ.get("PYSHAPES_FAULT") == "mooncake-staging-unregistered" and self.attn_tp_rank == 1:
                    registered_size = 0
                self.engine.remote_buffers[session_id] = [(dst_staging_ptr, registered_size)]
                self.transfer_infos[req.bootstrap_room] = {
                    session_id: TransferInfo(req.bootstrap_room, session_id, dst_staging_ptr, [])
                }
                self.request_status[req.bootstrap_room] = KVPoll.WaitingForInput
                return KVSender(self, req.bootstrap_room)

            def add_transfer_request(self, bootstrap_room: int, kv_indices, is_last: bool):
                self.request_status[bootstrap_room] = KVPoll.Transferring
                self.transfer_queue.put(TransferKVChunk(bootstrap_room, kv_indices, is_last))

            def check_status(self, bootstrap_room: int):
                return self.request_status[bootstrap_room]

            def update_status(self, bootstrap_room: int, status):
                self.request_status[bootstrap_room] = status
    '''),
    (540, 4, r'''
            def send_kvcache_staged(
                self,
                mooncake_session_id: str,
                prefill_kv_indices: List[int],
                dst_staging_ptr: int,
                dst_kv_indices: List[int],
            ) -> int:
                staging_buffer = self.staging_buffer
                local_bytes = len(prefill_kv_indices) * self.page_bytes // self.attn_tp_size
                rank_offset = self.attn_tp_rank * local_bytes
                ret = self.engine.batch_transfer_sync(
                    mooncake_session_id,
                    [staging_buffer.get_ptr()],
                    [dst_staging_ptr + rank_offset],
                    [local_bytes],
                )
    '''),
    (608, 8, r'''
        if ret != 0:
            raise RuntimeError(
                f"[Staging] Bulk RDMA transfer failed with ret={ret}. "
                f"src_ptr=0x{staging_buffer.get_ptr():x}, dst_ptr=0x{dst_staging_ptr + rank_offset:x}, "
                f"size={local_bytes}. The decode staging buffer may not be properly registered."
            )
        return ret
    '''),
    (1700, 4, r'''
            def transfer_worker(self, queue, executor: concurrent.futures.ThreadPoolExecutor):
                while True:
                    try:
                        kv_chunk: TransferKVChunk = queue.get()
                        reqs_to_be_processed = (
                            self.transfer_infos[kv_chunk.room].values()
                            if kv_chunk.room in self.transfer_infos
                            else []
                        )
                        polls = []
                        local_rank = self.attn_tp_rank * self.pp_size + self.pp_rank
                        for req in reqs_to_be_processed:
                            chunked_dst_kv_indice = req.dst_kv_indices
                            if self.enable_staging:
                                ret = self.send_kvcache_staged(
                                    req.mooncake_session_id,
                                    kv_chunk.prefill_kv_indices,
                                    req.dst_staging_ptr,
                                    chunked_dst_kv_indice,
                                )
                            polls.append(ret == 0)
                        if kv_chunk.is_last:
                            self.update_status(
                                kv_chunk.room, KVPoll.Success if all(polls) else KVPoll.Failed
                            )
    '''),
    (1933, 12, r'''
                    except Exception as e:
                        # Raise the error so that the failure is visible; the transfer
                        # thread cannot recover from an unknown state.
                        raise RuntimeError(
                            f"Transfer thread failed because of {e}. Prefill instance with bootstrap_port={self.bootstrap_port} is dead."
                        )
    '''),
)

NIXL_CONN = src(
    (1, r'''
        import dataclasses
        import logging
        import os
        import queue
        import threading
        from typing import List

        from sglang.srt.disaggregation.base import KVPoll, KVSender

        logger = logging.getLogger(__name__)


        class NixlTransportError(RuntimeError):
            pass


        _NIXL_TRANSPORT_ERRORS = (NixlTransportError,)


        @dataclasses.dataclass
        class TransferKVChunk:
            room: int
            prefill_kv_indices: List[int]
            is_last: bool


        class StagingRing:
            def __init__(self, total_pages: int, reserved_pages: int = 0):
                self.total_pages = total_pages
                self.reserved_pages = reserved_pages

            def free_pages(self) -> int:
                return self.total_pages - self.reserved_pages
    '''),
    (480, r'''
        class NixlKVManager:
            def __init__(self, server_args, tp_rank: int, gpu_id: int, cpu_group):
                self.server_args = server_args
                self.tp_rank = tp_rank
                self.bootstrap_port = server_args.disaggregation_bootstrap_port
                self.enable_staging = True
                pool_mb = int(os.environ.get("SGLANG_DISAGG_STAGING_POOL_SIZE_MB", "256"))
                reserved = 0
                if os.environ.get("PYSHAPES_FAULT") == "nixl-staging-ring-full" and tp_rank == 0:
                    # Rank 0 also stages the aux and state buffers in the same ring.
                    reserved = pool_mb * 2 - 8
                self.staging_ring = StagingRing(total_pages=pool_mb * 2, reserved_pages=reserved)
                self.request_status = {}
                self.failure_records = {}
                self.failure_lock = threading.Lock()
                self.transfer_queue = queue.Queue()
                threading.Thread(
                    target=self.transfer_worker, args=(self.transfer_queue, None), daemon=True
                ).start()

            def create_sender(self, req):
                self.request_status[req.bootstrap_room] = KVPoll.WaitingForInput
                return KVSender(self, req.bootstrap_room)

            def add_transfer_request(self, bootstrap_room: int, kv_indices, is_last: bool):
                self.request_status[bootstrap_room] = KVPoll.Transferring
                self.transfer_queue.put(TransferKVChunk(bootstrap_room, kv_indices, is_last))

            def check_status(self, bootstrap_room: int):
                return self.request_status[bootstrap_room]

            def update_status(self, bootstrap_room: int, status):
                self.request_status[bootstrap_room] = status

            def record_failure(self, bootstrap_room: int, failure_reason: str):
                with self.failure_lock:
                    self.failure_records[bootstrap_room] = failure_reason
    '''),
    (1100, 4, r'''
            def transfer_worker(self, queue, executor):
                while True:
                    room = None
                    try:
                        kv_chunk: TransferKVChunk = queue.get()
                        room = kv_chunk.room
                        chunk_idx = 0
                        handles = []
                        if self.enable_staging:
                            handles = self._do_staging_transfer(kv_chunk, chunk_idx)
                        if kv_chunk.is_last:
                            self.update_status(room, KVPoll.Success)
    '''),
    (1366, 12, r'''
                    except _NIXL_TRANSPORT_ERRORS as e:
                        logger.warning(f"NIXL transport error for room {room}: {e}")
                        self.record_failure(room, str(e))
                        self.update_status(room, KVPoll.Failed)
                    except Exception as e:
                        logger.exception("Unexpected transfer worker error for room %s", room)
                        self.record_failure(room, str(e))
                        self.update_status(room, KVPoll.Failed)
    '''),
    (1960, 4, r'''
            def _do_staging_transfer(self, kv_chunk: TransferKVChunk, chunk_idx: int):
                num_pages = len(kv_chunk.prefill_kv_indices)
                if num_pages > self.staging_ring.total_pages:
                    raise RuntimeError(
                        f"[Staging] Chunk staging allocation permanently failed: chunk exceeds ring buffer total size (room={kv_chunk.room}). "
                        "Increase SGLANG_DISAGG_STAGING_POOL_SIZE_MB."
                    )
    '''),
    (1986, 8, r'''
        if num_pages > self.staging_ring.free_pages():
            raise RuntimeError(
                f"[Staging] Staged transfer cannot fit chunk (room={kv_chunk.room}, chunk_idx={chunk_idx}, pages={num_pages}). "
                "Increase SGLANG_DISAGG_STAGING_POOL_SIZE_MB or reduce chunked_prefill_size."
            )
        return [num_pages]
    '''),
)


def scheduler_src():
    return src(
        (1, r'''
            """A scheduler that manages a tensor parallel GPU worker."""

            import faulthandler
            import logging
            import os
            import signal
            import time
            from typing import List

            from sglang.srt.disaggregation.prefill import (
                PrefillBootstrapQueue,
                SchedulerDisaggregationPrefillMixin,
            )
            from sglang.srt.managers.tp_worker import TpModelWorker
            from sglang.srt.utils.common import configure_logger, get_bool_env_var
            from sglang.srt.utils.watchdog import Watchdog
            from sglang.utils import get_exception_traceback

            logger = logging.getLogger(__name__)


            class Req:
                def __init__(self, rid, input_len, output_len, bootstrap_room=None):
                    self.rid = rid
                    self.input_len = input_len
                    self.output_len = output_len
                    self.bootstrap_room = bootstrap_room
                    self.decoded = 0
                    self.disagg_kv_sender = None


            class ScheduleBatch:
                def __init__(self, reqs, forward_mode):
                    self.reqs = reqs
                    self.forward_mode = forward_mode
                    self.num_tokens = sum(r.input_len for r in reqs) if forward_mode == "extend" else len(reqs)
                    self.input_ids = None
                    self.positions = None
        '''),
        (280, r'''
            class Scheduler(SchedulerDisaggregationPrefillMixin):
                """A scheduler that manages a tensor parallel GPU worker."""
        '''),
        (410, 4, r'''
                def __init__(self, server_args, gpu_id: int, tp_rank: int, recv_from_tokenizer, cpu_group):
                    self.server_args = server_args
                    self.gpu_id = gpu_id
                    self.tp_rank = tp_rank
                    self.tp_size = server_args.tp_size
                    self.recv_from_tokenizer = recv_from_tokenizer
                    self.cpu_group = cpu_group
                    self.disaggregation_mode = server_args.disaggregation_mode
                    self.is_stats_logging_rank = tp_rank == 0

                    # Launch a tensor parallel worker
                    self.init_model_worker()

                    # Init memory pool and cache
                    self.init_memory_pool_and_cache()

                    # Init disaggregation
                    self.init_disaggregation()

                    self.waiting_queue: List[Req] = []
                    self.running_reqs: List[Req] = []
                    self.forward_ct = 0
                    self.decode_ct = 0
                    self.last_decode_stats_tic = time.perf_counter()
                    self.watchdog = Watchdog(
                        debug_name="scheduler",
                        watchdog_timeout=server_args.watchdog_timeout,
                        get_counter=lambda: self.forward_ct,
                    )
        '''),
        (640, 4, r'''
                def init_model_worker(self):
                    self.tp_worker = TpModelWorker(
                        server_args=self.server_args,
                        gpu_id=self.gpu_id,
                        tp_rank=self.tp_rank,
                        cpu_group=self.cpu_group,
                    )
                    self.max_total_num_tokens = self.tp_worker.model_runner.max_total_num_tokens
                    self.context_len = self.tp_worker.model_runner.model_config.context_len
        '''),
        (700, 4, r'''
                def init_memory_pool_and_cache(self):
                    from sglang.srt.mem_cache.radix_cache import RadixCache

                    self.token_to_kv_pool_allocator = self.tp_worker.model_runner.token_to_kv_pool_allocator
                    self.tree_cache = RadixCache(
                        token_to_kv_pool_allocator=self.token_to_kv_pool_allocator,
                        page_size=self.server_args.page_size,
                        log_evictions=self.is_stats_logging_rank,
                    )

                def init_disaggregation(self):
                    self.disagg_prefill_inflight_queue = []
                    if self.disaggregation_mode == "prefill":
                        self.disagg_prefill_bootstrap_queue = PrefillBootstrapQueue(
                            server_args=self.server_args,
                            tp_rank=self.tp_rank,
                            gpu_id=self.gpu_id,
                            cpu_group=self.cpu_group,
                        )
        '''),
        (1090, 4, r'''
                def log_startup_info(self):
                    if self.tp_rank == 0:
                        logger.info(
                            f"max_total_num_tokens={self.max_total_num_tokens}, "
                            f"chunked_prefill_size={self.server_args.chunked_prefill_size}, "
                            f"max_prefill_tokens={self.server_args.max_prefill_tokens}, "
                            f"max_running_requests=4096, "
                            f"context_len={self.context_len}, "
                            f"available_gpu_mem={self.tp_worker.model_runner.avail_mem:.2f} GB"
                        )
        '''),
        (1200, 4, r'''
                def run_event_loop(self):
                    if self.disaggregation_mode == "prefill":
                        self.event_loop_normal_disagg_prefill()
                    else:
                        self.event_loop_normal()

                def event_loop_normal(self):
                    """A normal scheduler loop."""
                    while True:
                        recv_reqs = self.recv_requests()
                        self.process_input_requests(recv_reqs)
                        batch = self.get_next_batch_to_run()
                        self.cur_batch = batch
                        if batch:
                            result = self.run_batch(batch)
                            self.process_batch_result(batch, result)

                def recv_requests(self):
                    recv_reqs = []
                    timeout = 0.001 if self.running_reqs else 0.05
                    while self.recv_from_tokenizer.poll(timeout):
                        recv_reqs.append(self.recv_from_tokenizer.recv())
                        timeout = 0
                    return recv_reqs

                def process_input_requests(self, recv_reqs):
                    for recv_req in recv_reqs:
                        self.waiting_queue.append(Req(**recv_req))
        '''),
        (2050, 4, r'''
                def get_next_batch_to_run(self):
                    new_batch = self.get_new_batch_prefill()
                    if new_batch is not None:
                        return new_batch
                    if self.running_reqs:
                        return ScheduleBatch(list(self.running_reqs), forward_mode="decode")
                    return None

                def get_new_batch_prefill(self):
                    if not self.waiting_queue:
                        return None
                    can_run_list, self.waiting_queue = self.waiting_queue, []
                    num_new_tokens = sum(req.input_len for req in can_run_list)
                    if num_new_tokens > self.token_to_kv_pool_allocator.available_size():
                        self.tree_cache.evict(num_new_tokens)
                    self.token_to_kv_pool_allocator.alloc(num_new_tokens)
                    self.log_prefill_stats(can_run_list, num_new_tokens)
                    return ScheduleBatch(can_run_list, forward_mode="extend")
        '''),
        (2400, 4, r'''
                def run_batch(self, batch):
                    self.forward_ct += 1
                    batch_result = self.tp_worker.forward_batch_generation(batch)
                    return batch_result

                def process_batch_result(self, batch, result):
                    if batch.forward_mode == "extend":
                        if not self.running_reqs:
                            self.last_decode_stats_tic = time.perf_counter()
                        self.running_reqs.extend(batch.reqs)
                        return
                    self.decode_ct += 1
                    time.sleep(0.004)
                    for req in batch.reqs:
                        req.decoded += 1
                    self.token_to_kv_pool_allocator.alloc(len(batch.reqs))
                    finished = [req for req in batch.reqs if req.decoded >= req.output_len]
                    for req in finished:
                        self.running_reqs.remove(req)
                        self.tree_cache.cache_finished_req(req.input_len + req.output_len)
                    if self.decode_ct % self.server_args.decode_log_interval == 0:
                        self.log_decode_stats(batch)
        '''),
        (2600, 4, r'''
                def _token_usage(self) -> float:
                    return self.token_to_kv_pool_allocator.used / self.max_total_num_tokens

                def log_prefill_stats(self, can_run_list, num_new_tokens: int):
                    if not self.is_stats_logging_rank:
                        return
                    msg = (
                        f"Prefill batch, #new-seq: {len(can_run_list)}, #new-token: {num_new_tokens}, "
                        f"#cached-token: 0, token usage: {self._token_usage():.2f}, "
                        f"#running-req: {len(self.running_reqs)}, #queue-req: {len(self.waiting_queue)}, "
                        f"#pending-token: 0, "
                    )
                    if self.disaggregation_mode == "prefill":
                        msg += (
                            f"#bootstrap-req: 0, #inflight-req: {len(self.disagg_prefill_inflight_queue)}, "
                            f"#optimistic-req: 0, "
                        )
                    throughput = num_new_tokens / (0.18 + num_new_tokens / 16500)
                    msg += f"cuda graph: False, input throughput (token/s): {throughput:.2f}"
                    logger.info(msg)

                def log_decode_stats(self, batch):
                    if not self.is_stats_logging_rank:
                        return
                    num_tokens = sum(req.input_len + req.decoded for req in batch.reqs)
                    now = time.perf_counter()
                    gen_throughput = (
                        self.server_args.decode_log_interval * len(batch.reqs) / (now - self.last_decode_stats_tic)
                    )
                    self.last_decode_stats_tic = now
                    logger.info(
                        f"Decode batch, #running-req: {len(batch.reqs)}, #token: {num_tokens}, "
                        f"token usage: {self._token_usage():.2f}, cuda graph: True, "
                        f"gen throughput (token/s): {gen_throughput:.2f}, #queue-req: {len(self.waiting_queue)}"
                    )
        '''),
        (5120, r'''
            def configure_scheduler_process(server_args, gpu_id: int, tp_rank: int):
                # Generate the logger prefix
                prefix = ""
                if server_args.tp_size > 1:
                    prefix += f" TP{tp_rank}"
                configure_logger(server_args, prefix=prefix)
                faulthandler.enable()

                # Bind the process to the NUMA node of its GPU
                if server_args.numa_node is not None:
                    numa_bind_to_node(server_args.numa_node[gpu_id])
                return prefix


            def numa_bind_to_node(node: int):
                logger.info(f"Binding the scheduler process to NUMA node {node}.")
                with open(f"/sys/devices/system/node/node{node}/cpulist") as f:
                    cpulist = f.read().strip()
                cpus = set()
                for part in cpulist.split(","):
                    lo, _, hi = part.partition("-")
                    cpus.update(range(int(lo), int(hi or lo) + 1))
                os.sched_setaffinity(0, cpus)
        '''),
        (5180, r'''
            def run_scheduler_process(server_args, gpu_id: int, tp_rank: int, pipe_writer, recv_from_tokenizer, cpu_group):
                # All ranks start together (the launcher waits for every rank anyway).
                cpu_group.barrier()
                configure_scheduler_process(server_args, gpu_id, tp_rank)
                parent_pid = os.getppid()

                # Create a scheduler and run the event loop
                try:
                    scheduler = Scheduler(server_args, gpu_id, tp_rank, recv_from_tokenizer, cpu_group)
                    scheduler.log_startup_info()
                    pipe_writer.send(
                        {
                            "status": "ready",
                            "max_total_num_tokens": scheduler.max_total_num_tokens,
                        }
                    )
                    scheduler.run_event_loop()
                except Exception:
        '''),
        (5210, 8, r'''
            traceback = get_exception_traceback()
            logger.error(f"Scheduler hit an exception: {traceback}")
            os.kill(parent_pid, signal.SIGQUIT)
        '''),
    )


# ---------------------------------------------------------------------------
# The child-interpreter hook (written as sitecustomize.py to a temp dir)
# ---------------------------------------------------------------------------

BOOT = r'''
"""Import hook for the stand-in sglang modules of testdata/gen/pyshapes.py."""
import importlib.abc
import importlib.machinery
import json
import linecache
import os
import sys
import time

_MODULES = {}


class _Loader(importlib.abc.ExecutionLoader):
    def get_filename(self, fullname):
        return _MODULES[fullname][0]

    def get_source(self, fullname):
        return _MODULES[fullname][1]

    def is_package(self, fullname):
        return _MODULES[fullname][2]

    def get_code(self, fullname):
        path, source, _ = _MODULES[fullname]
        return compile(source, path, "exec", dont_inherit=True)


_LOADER = _Loader()


class _Finder:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        entry = _MODULES.get(fullname)
        if entry is None:
            return None
        file, _, is_pkg = entry
        spec = importlib.machinery.ModuleSpec(fullname, _LOADER, origin=file, is_package=is_pkg)
        spec.has_location = True
        if is_pkg:
            spec.submodule_search_locations = [os.path.dirname(file)]
        return spec

    @classmethod
    def invalidate_caches(cls):
        pass


class _SlowStream:
    """Writes whole lines to the wrapped stream, pausing after each one."""

    def __init__(self, stream, delay):
        self._stream = stream
        self._delay = delay
        self._pending = ""

    def write(self, text):
        self._pending += text
        while "\n" in self._pending:
            line, self._pending = self._pending.split("\n", 1)
            self._stream.write(line + "\n")
            self._stream.flush()
            time.sleep(self._delay)
        return len(text)

    def flush(self):
        if self._pending:
            self._stream.write(self._pending)
            self._pending = ""
        self._stream.flush()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _install():
    spec_file = os.environ.get("PYSHAPES_MODULES")
    if not spec_file:
        return
    with open(spec_file, encoding="utf-8") as f:
        data = json.load(f)
    for name, (path, source, is_pkg) in data["modules"].items():
        _MODULES[name] = (path, source, is_pkg)
        linecache.cache[path] = (len(source), None, source.splitlines(True), path)
    if data["search_dir"] not in sys.path:
        sys.path.insert(0, data["search_dir"])
    sys.meta_path.insert(0, _Finder)
    if data.get("extension_aliases"):
        import _json

        for alias in data["extension_aliases"]:
            sys.modules.setdefault(alias, _json)
    if data.get("slow_stderr"):
        sys.stderr = _SlowStream(sys.stderr, data["slow_stderr"])


_install()
'''


# ---------------------------------------------------------------------------
# Running a shape
# ---------------------------------------------------------------------------


def module_name(relpath):
    name = relpath[:-3].replace("/", ".")
    if name.endswith(".__init__"):
        return name[: -len(".__init__")], True
    return name, False


def base_modules(*, with_common_ops=True, port_check=False):
    """The stand-in sglang tree shared by the shapes."""
    mods = {
        "sglang/__init__.py": sglang_init(),
        "sglang/utils.py": SGLANG_UTILS,
        "sglang/launch_server.py": LAUNCH_SERVER,
        "sglang/srt/server_args.py": server_args_src(port_check=port_check),
        "sglang/srt/utils/common.py": COMMON,
        "sglang/srt/utils/network.py": NETWORK,
        "sglang/srt/utils/watchdog.py": WATCHDOG,
        "sglang/srt/utils/hf_transformers_utils.py": HF_TRANSFORMERS_UTILS,
        "sglang/srt/configs/model_config.py": MODEL_CONFIG,
        "sglang/srt/entrypoints/http_server.py": HTTP_SERVER,
        "sglang/srt/entrypoints/engine.py": ENGINE,
        "sglang/srt/managers/tokenizer_manager.py": TOKENIZER_MANAGER,
        "sglang/srt/managers/scheduler.py": scheduler_src(),
        "sglang/srt/managers/tp_worker.py": TP_WORKER,
        "sglang/srt/model_executor/model_runner.py": MODEL_RUNNER,
        "sglang/srt/model_loader/loader.py": LOADER,
        "sglang/srt/models/ernie4.py": ERNIE4,
        "sglang/srt/models/qwen3_moe.py": model_module(
            "Inference-only Qwen3MoE model compatible with HuggingFace weights.", ["Qwen3MoeForCausalLM"]),
        "sglang/srt/models/qwen3.py": model_module(
            "Inference-only Qwen3 model compatible with HuggingFace weights.", ["Qwen3ForCausalLM"]),
        "sglang/srt/models/qwen2.py": model_module(
            "Inference-only Qwen2 model compatible with HuggingFace weights.", ["Qwen2ForCausalLM"]),
        "sglang/srt/models/llama.py": model_module(
            "Inference-only LLaMA model compatible with HuggingFace weights.", ["LlamaForCausalLM"]),
        "sglang/srt/layers/linear.py": LINEAR,
        "sglang/srt/layers/sampler.py": SAMPLER,
        "sglang/srt/mem_cache/memory_pool.py": MEMORY_POOL,
        "sglang/srt/mem_cache/radix_cache.py": RADIX_CACHE,
        "sglang/srt/distributed/parallel_state.py": PARALLEL_STATE,
        "sglang/srt/distributed/communication_op.py": COMMUNICATION_OP,
        "sglang/srt/distributed/device_communicators/custom_all_reduce.py": CUSTOM_ALL_REDUCE,
        "sglang/srt/disaggregation/base.py": DISAGG_BASE,
        "sglang/srt/disaggregation/prefill.py": PREFILL,
        "sglang/srt/disaggregation/mooncake/conn.py": MOONCAKE_CONN,
        "sgl_kernel/__init__.py": SGL_KERNEL_INIT,
        "sgl_kernel/load_utils.py": SGL_KERNEL_LOAD_UTILS,
        "transformers/__init__.py": TRANSFORMERS_INIT,
        "transformers/utils/hub.py": TRANSFORMERS_HUB,
        "transformers/configuration_utils.py": TRANSFORMERS_CONFIGURATION_UTILS,
        "transformers/models/auto/configuration_auto.py": TRANSFORMERS_CONFIGURATION_AUTO,
        "torch/__init__.py": TORCH_INIT,
        "torch/nn/__init__.py": TORCH_NN_INIT,
        "torch/nn/modules/__init__.py": TORCH_NN_MODULES_INIT,
        "torch/nn/modules/module.py": TORCH_MODULE,
    }
    if with_common_ops:
        mods["common_ops.py"] = COMMON_OPS
    return mods


class Harness:
    def __init__(self, python, workdir):
        self.python = python
        self.workdir = workdir
        self.cwd = os.path.join(workdir, "cwd")
        os.makedirs(self.cwd, exist_ok=True)
        with open(os.path.join(workdir, "sitecustomize.py"), "w", encoding="utf-8") as f:
            f.write(BOOT)

    def prepare(self, tag, modules, *, c_visible_inits=(), extension_aliases=(), slow_stderr=None):
        """Write the module table and the base-name copies for one run; return its env file."""
        run_dir = os.path.join(self.workdir, tag)
        search_dir = os.path.join(run_dir, "src")
        shutil.rmtree(run_dir, ignore_errors=True)
        os.makedirs(search_dir)
        table = {}
        seen = {}
        # Every package directory gets an (empty) __init__.py unless one is given.
        for relpath in list(modules):
            parts = relpath.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                init = "/".join(parts[:i]) + "/__init__.py"
                modules.setdefault(init, "")
        for relpath, source in sorted(modules.items()):
            path = f"{SITE}/{relpath}"
            if os.path.exists(path):
                raise SystemExit(f"{path} exists on this machine; the stand-in would not be used")
            name, is_pkg = module_name(relpath)
            table[name] = (path, source, is_pkg)
            base = os.path.basename(relpath)
            if base == "__init__.py" and relpath not in c_visible_inits:
                continue
            if base in seen:
                raise SystemExit(f"two stand-in modules named {base}: {seen[base]} and {relpath}")
            seen[base] = relpath
            with open(os.path.join(search_dir, base), "w", encoding="utf-8") as f:
                f.write(source)
        spec = {
            "modules": table,
            "search_dir": search_dir,
            "extension_aliases": list(extension_aliases),
            "slow_stderr": slow_stderr,
        }
        spec_file = os.path.join(run_dir, "modules.json")
        with open(spec_file, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        return spec_file

    def env(self, spec_file, extra=None):
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "TZ": "UTC",
            "HOME": self.cwd,
            "PYTHONPATH": self.workdir,
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYSHAPES_MODULES": spec_file,
        }
        env.update(extra or {})
        return env

    def run(self, argv, out_path, spec_file, *, extra_env=None, watch=None, timeout=90, grace=0.8):
        """Run one child with stdout+stderr into out_path; return its exit status.

        watch(text, proc) is called while the child runs; returning True ends
        the run (the whole process group is then killed).
        """
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(
                [self.python, *argv],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self.cwd,
                env=self.env(spec_file, extra_env),
                start_new_session=True,
            )
            deadline = time.monotonic() + timeout
            try:
                while proc.poll() is None:
                    if watch is not None:
                        with open(out_path, "r", encoding="utf-8", errors="replace") as f:
                            if watch(f.read(), proc):
                                break
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"{os.path.basename(out_path)}: child did not finish in {timeout}s")
                    time.sleep(0.002)
                if proc.poll() is not None:
                    # Let processes left behind (e.g. the resource tracker) finish writing.
                    time.sleep(grace)
            finally:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        return proc.returncode


def read_text(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def fresh_modules(**kw):
    """A new module table (each run may add or remove modules)."""
    return base_modules(**kw)


# ---------------------------------------------------------------------------
# The shapes
# ---------------------------------------------------------------------------

SHAPES = []


def shape(name):
    def register(fn):
        SHAPES.append((name, fn))
        return fn
    return register


def server_argv(*args):
    return ["-m", "sglang.launch_server", *args]


def timeline_env(events, **extra):
    env = {"PYSHAPES_TIMELINE": json.dumps(events)}
    env.update(extra)
    return env


def wait_for(pattern, *, count=1, then=None):
    """A watch function: stop (or run `then`) once pattern matched `count` times."""
    state = {"done": False}

    def watch(text, proc):
        if state["done"]:
            return False
        if len(re.findall(pattern, text, re.M)) >= count:
            state["done"] = True
            if then is None:
                time.sleep(0.5)
                return True
            then(proc)
        return False

    return watch


@shape("chained-scheduler")
def make_chained(h, out):
    """TP=2 startup; TP1 fails to load weights: a KeyError chained (`from e`) into a RuntimeError."""
    spec = h.prepare("chained", fresh_modules())
    rc = h.run(
        server_argv("--model-path", "baidu/ERNIE-4.5-21B-A3B-PT", "--tp-size", "2",
                    "--trust-remote-code", "--host", "0.0.0.0", "--port", "30000"),
        out, spec, extra_env={"PYSHAPES_FAULT": "ernie-extra-param"},
    )
    return {"exit status of the main process": rc}


@shape("thread-transfer-worker")
def make_thread_transfer(h, out):
    """PD prefill, mooncake, TP=2: the transfer_worker thread of TP1 dies; the scheduler keeps running."""
    spec = h.prepare("thread", fresh_modules())
    events = [
        {"sleep": 1.0},
        {"access": '10.42.9.31:46712 - "GET /health HTTP/1.1" 200 OK'},
        {"sleep": 0.5},
        {"generate": {"rid": "8c1f4e2a9b7d4c36a0e5f1b2c3d4e5f6", "input_len": 3172, "output_len": 1,
                      "bootstrap_room": 4471820935521}},
        {"sleep": 2.5},
        {"access": '10.42.9.31:46712 - "GET /health HTTP/1.1" 200 OK'},
        {"sleep": 1.2},
        {"generate": {"rid": "f03a9d6b2c5e47e1b8a4d7c90e1f2a3b", "input_len": 1208, "output_len": 1,
                      "bootstrap_room": 4471820935522}},
        {"sleep": 1.5},
        {"generate": {"rid": "27b6e0c4d9a1453f8e2b6c7d0f9a8e11", "input_len": 5630, "output_len": 1,
                      "bootstrap_room": 4471820935523}},
        {"sleep": 1.0},
        {"access": '10.42.9.31:46712 - "GET /health HTTP/1.1" 200 OK'},
        {"sleep": 0.6},
    ]
    rc = h.run(
        server_argv("--model-path", "Qwen/Qwen3-30B-A3B", "--tp-size", "2", "--page-size", "64",
                    "--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "mooncake",
                    "--disaggregation-ib-device", "mlx5_0,mlx5_1", "--host", "0.0.0.0", "--port", "30100"),
        out, spec, extra_env=timeline_env(events, PYSHAPES_FAULT="mooncake-staging-unregistered"),
        watch=wait_for(r'GET /health HTTP/1.1" 200 OK', count=3),
    )
    return {"exit status of the main process": f"{rc} (killed by the generator; the server was still running)"}


@shape("logger-exception")
def make_logger_exception(h, out):
    """PD prefill, NIXL, TP=2: logger.exception in the transfer worker, then failed transfers on both ranks."""
    mods = fresh_modules()
    mods["sglang/srt/disaggregation/nixl/conn.py"] = NIXL_CONN
    del mods["sglang/srt/disaggregation/mooncake/conn.py"]
    spec = h.prepare("loggerexc", mods)
    events = [
        {"sleep": 0.8},
        {"generate": {"rid": "5d0b8f3e6a2c4e19b7f1a0c2d4e6f809", "input_len": 2944, "output_len": 1,
                      "bootstrap_room": 7120583346011}},
        {"sleep": 1.0},
        {"access": '10.40.2.9:36124 - "POST /generate HTTP/1.1" 500 Internal Server Error'},
        {"sleep": 2.0},
        {"access": '10.40.2.9:36118 - "GET /health HTTP/1.1" 200 OK'},
        {"sleep": 0.5},
    ]
    rc = h.run(
        server_argv("--model-path", "Qwen/Qwen3-30B-A3B", "--tp-size", "2", "--page-size", "64",
                    "--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "nixl",
                    "--host", "0.0.0.0", "--port", "30100"),
        out, spec,
        extra_env=timeline_env(events, PYSHAPES_FAULT="nixl-staging-ring-full",
                               SGLANG_DISAGG_STAGING_POOL_SIZE_MB="64"),
        watch=wait_for(r"GET /health HTTP/1.1\" 200 OK"),
    )
    return {"exit status of the main process": f"{rc} (killed by the generator; the server was still running)"}


@shape("exception-group")
def make_exception_group(h, out):
    """Launch-time ExceptionGroup (uncaught) with a nested ExceptionGroup."""
    spec = h.prepare("eg", fresh_modules(port_check=True))
    rc = h.run(
        server_argv("--model-path", "Qwen/Qwen3-8B", "--host", "192.0.2.15", "--port", "30000",
                    "--dist-init-addr", "192.0.2.15:5757"),
        out, spec,
    )
    return {"exit status of the main process": rc}


def interleaved_tracebacks(text):
    """True if two tracebacks overlap: one starts before the previous one has ended."""
    open_count = 0
    for line in text.splitlines():
        if line == "Traceback (most recent call last):":
            open_count += 1
            if open_count > 1:
                return True
        elif re.match(r"[A-Za-z_][\w.]*(Error|Exception)(: |$)", line) and open_count:
            open_count -= 1
    return False


@shape("multiprocess-ranks")
def make_multiprocess(h, out):
    """Four spawned scheduler ranks fail outside their try block; their tracebacks interleave."""
    spec = h.prepare("mp", fresh_modules())
    argv = server_argv("--model-path", "meta-llama/Llama-3.3-70B-Instruct", "--tp-size", "4",
                       "--numa-node", "2", "2", "3", "3", "--host", "0.0.0.0", "--port", "30000")
    tries = 40
    for attempt in range(1, tries + 1):
        rc = h.run(argv, out, spec)
        if interleaved_tracebacks(read_text(out)):
            return {"exit status of the main process": rc, "attempts until interleaved": attempt}
    raise SystemExit(f"multiprocess-ranks: no run out of {tries} had interleaved tracebacks")


@shape("logging-error")
def make_logging_error(h, out):
    """A `--- Logging error ---` block from a bad %-format call; the server keeps going."""
    spec = h.prepare("logerr", fresh_modules())
    events = [
        {"sleep": 0.5},
        {"generate": {"rid": "0b4f7a2e91c84d5fa3e6b8c7d1f0e2a4", "input_len": 19840, "output_len": 80}},
        {"sleep": 1.2},
        {"access": '127.0.0.1:51872 - "POST /v1/chat/completions HTTP/1.1" 200 OK'},
        {"sleep": 0.2},
        {"generate": {"rid": "e6d2c1b0a9f84e7d8c5b4a3f2e1d0c9b", "input_len": 22016, "output_len": 80}},
        {"sleep": 1.2},
        {"access": '127.0.0.1:51880 - "POST /v1/chat/completions HTTP/1.1" 200 OK'},
        {"sleep": 0.2},
        {"generate": {"rid": "7a9e3c5b1d2f4068a4b2c6e8f0d1b3a5", "input_len": 17408, "output_len": 80}},
        {"sleep": 1.2},
        {"access": '127.0.0.1:51888 - "POST /v1/chat/completions HTTP/1.1" 200 OK'},
        {"sleep": 0.3},
    ]
    rc = h.run(
        server_argv("--model-path", "meta-llama/Llama-3.3-70B-Instruct", "--tp-size", "2",
                    "--mem-fraction-static", "0.9", "--host", "127.0.0.1", "--port", "30000"),
        out, spec, extra_env=timeline_env(events),
        watch=wait_for(r'51888 - "POST'),
    )
    return {"exit status of the main process": f"{rc} (killed by the generator; the server was still running)"}


@shape("faulthandler")
def make_faulthandler(h, out):
    """A real segfault in a scheduler rank with faulthandler enabled."""
    aliases = [
        "numpy.core._multiarray_umath", "numpy.core._multiarray_tests", "numpy.linalg._umath_linalg",
        "numpy.fft._pocketfft_internal", "numpy.random._common", "numpy.random.bit_generator",
        "numpy.random._mt19937", "numpy.random.mtrand", "torch._C", "torch._C._dynamo.autograd_compiler",
        "torch._C._dynamo.eval_frame", "torch._C._dynamo.guards", "torch._C._dynamo.utils",
        "torch._C._fft", "torch._C._linalg", "torch._C._nested", "torch._C._nn", "torch._C._sparse",
        "torch._C._special", "yaml._yaml", "psutil._psutil_linux", "psutil._psutil_posix",
        "setproctitle._setproctitle", "zmq.backend.cython._zmq", "uvloop.loop", "msgspec._core",
        "sentencepiece._sentencepiece", "PIL._imaging", "markupsafe._speedups", "pydantic_core._pydantic_core",
        "regex._regex", "cuda_utils", "__triton_launcher",
    ]
    spec = h.prepare("fault", fresh_modules(), extension_aliases=aliases)
    events = [
        {"sleep": 0.6},
        {"access": '127.0.0.1:40514 - "GET /health HTTP/1.1" 200 OK'},
        {"sleep": 0.4},
        {"generate": {"rid": "b2e4c6a8d0f1e3a5c7b9d1f3e5a7c9b1", "input_len": 1836, "output_len": 256}},
        {"sleep": 3.0},
    ]
    result = {}

    def exit_status_watch(text, proc):
        m = re.search(r"crashed with exit code (-?\d+)", text)
        if m:
            result["scheduler exit status (reported by the main process)"] = int(m.group(1))
        return False

    rc = h.run(
        server_argv("--model-path", "Qwen/Qwen2.5-32B-Instruct", "--tp-size", "2",
                    "--host", "0.0.0.0", "--port", "30000"),
        out, spec, extra_env=timeline_env(events, PYSHAPES_FAULT="custom-ar-null-peer"),
        watch=exit_status_watch,
    )
    exit_status_watch(read_text(out), None)
    result["exit status of the main process"] = rc
    return result


@shape("multiline-message")
def make_multiline(h, out):
    """Uncaught ImportError whose message starts with a newline and spans lines."""
    spec = h.prepare("multiline", fresh_modules(with_common_ops=False),
                     c_visible_inits=("sgl_kernel/__init__.py",))
    rc = h.run(server_argv("--model-path", "Qwen/Qwen3-8B", "--host", "0.0.0.0", "--port", "30000"), out, spec)
    return {"exit status of the main process": rc}


@shape("killed-mid-traceback")
def make_killed(h, out):
    """A long chained traceback written slowly to stderr; the process is SIGKILLed part way."""
    spec = h.prepare("killed", fresh_modules(), slow_stderr=0.03)

    def kill_when_deep(text, proc):
        marker = "During handling of the above exception, another exception occurred:"
        if marker in text and len(text.split(marker, 1)[1].splitlines()) >= 24:
            proc.send_signal(signal.SIGKILL)
            return True
        return False

    rc = h.run(
        server_argv("--model-path", "Qwen/Qwen3-30B-A3B", "--tp-size", "2", "--host", "0.0.0.0",
                    "--port", "30000"),
        out, spec, extra_env={"PYSHAPES_FAULT": "truncated-config-json"}, watch=kill_when_deep,
    )
    return {"exit status of the main process": rc}


@shape("keyboard-interrupt")
def make_keyboard_interrupt(h, out):
    """A running TP=1 server stopped with SIGINT: KeyboardInterrupt traceback at shutdown."""
    spec = h.prepare("sigint", fresh_modules())
    events = [
        {"sleep": 0.5},
        {"generate": {"rid": "4c8e2a6f0b1d43e5a7c9e1b3d5f7a9c2", "input_len": 412, "output_len": 100}},
        {"sleep": 0.8},
        {"access": '127.0.0.1:38822 - "POST /generate HTTP/1.1" 200 OK'},
        {"sleep": 0.4},
        {"access": '127.0.0.1:38830 - "GET /health HTTP/1.1" 200 OK'},
    ]

    def interrupt(proc):
        time.sleep(0.7)
        proc.send_signal(signal.SIGINT)

    rc = h.run(
        server_argv("--model-path", "Qwen/Qwen3-0.6B", "--host", "127.0.0.1", "--port", "30000"),
        out, spec, extra_env=timeline_env(events),
        watch=wait_for(r"GET /health HTTP/1.1", then=interrupt),
    )
    return {"exit status of the main process": rc}


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------

CHECKS = {
    "chained-scheduler": [
        r"^\[\S+ \S+ TP1\] Scheduler hit an exception: Traceback \(most recent call last\):$",
        r"^KeyError: \"Parameter '.*' not found in model\.\"$",
        r"^The above exception was the direct cause of the following exception:$",
        r"^RuntimeError: Failed to load the weights of Ernie4_5_MoeForCausalLM on TP rank 1: ",
        r"^RuntimeError: Failed to load.*\n\n",
        r"^\[\S+ \S+\] Received sigquit from a child process\. It usually means the child failed\.$",
        r"^ +\^+$",
    ],
    "thread-transfer-worker": [
        r"^Exception in thread Thread-1 \(transfer_worker\):$",
        r"^RuntimeError: \[Staging\] Bulk RDMA transfer failed with ret=-1\.",
        r"^During handling of the above exception, another exception occurred:$",
        r'^  File "/usr/lib/python3\.11/threading\.py", line \d+, in _bootstrap_inner$',
        r"^RuntimeError: Transfer thread failed because of \[Staging\].* Prefill instance with bootstrap_port=8998 is dead\.$",
        r"(?s)is dead\.\n.*#inflight-req: 2\b",
        r"^ +\^+$",
    ],
    "logger-exception": [
        r"^\[\S+ \S+ TP0\] Unexpected transfer worker error for room 7120583346011\nTraceback",
        r"^RuntimeError: \[Staging\] Staged transfer cannot fit chunk",
        r"^\[\S+ \S+ TP0\] Prefill transfer failed for request rank=0 req\.rid='5d0b8f3e6a2c4e19b7f1a0c2d4e6f809' req\.bootstrap_room=7120583346011 with exception KVTransferError",
        r"^\[\S+ \S+ TP1\] Prefill transfer failed for request rank=1 .*Failed due to an unknown reason from another rank$",
    ],
    "exception-group": [
        r"UserWarning: 'python -m sglang.launch_server' is still supported",
        r"^  \+ Exception Group Traceback \(most recent call last\):$",
        r"^  \| ExceptionGroup: Some ports required by the server are not available \(2 sub-exceptions\)$",
        r"^  \+-\+---------------- 1 ----------------$",
        r"^    \+-\+---------------- 1 ----------------$",
        r"^    \| ExceptionGroup: --dist-init-addr .* \(2 sub-exceptions\)$",
        r"^      \| OSError: Could not bind port 5758 on any configured address family$",
    ],
    "multiprocess-ranks": [
        r"^Process SpawnProcess-1:$",
        r"^Process SpawnProcess-4:$",
        r"^FileNotFoundError: \[Errno 2\] No such file or directory: '/sys/devices/system/node/node3/cpulist'$",
        r"^RuntimeError: Rank 0 scheduler died during initialization \(exit code: 1\)\.",
        r"^\[\S+ \S+ TP3\] Binding the scheduler process to NUMA node 3\.$",
    ],
    "logging-error": [
        r"^--- Logging error ---$",
        r"^TypeError: not enough arguments for format string$",
        r"^Call stack:$",
        r'^  File "<string>", line 1, in <module>$',
        r"^Message: 'Evicted %d tokens",
        r"^Arguments: \(\d+, \d+, \d+\)$",
        r"(?s)Arguments: .*\n\[\S+ \S+ TP0\] Decode batch",
    ],
    "faulthandler": [
        r"^Fatal Python error: Segmentation fault$",
        r"^Current thread 0x[0-9a-f]+ \(most recent call first\):$",
        r'^  File "/usr/lib/python3\.11/ctypes/__init__\.py", line \d+ in string_at$',
        r"^Extension modules: .*\(total: \d+\)$",
        r"crashed with exit code -11\. Triggering SIGQUIT for cleanup\.\.\.$",
        r"SIGQUIT received\. signum=None, frame=None\. It usually means one child failed\.$",
    ],
    "multiline-message": [
        r"^ImportError: $",
        r"^\[sgl_kernel\] CRITICAL: Could not load any common_ops library!$",
        r"^- ModuleNotFoundError: No module named 'common_ops'$",
        r'^  File "/usr/local/lib/python3\.11/dist-packages/sgl_kernel/__init__\.py", line \d+, in <module>$',
    ],
    "killed-mid-traceback": [
        r"^json\.decoder\.JSONDecodeError: ",
        r"^During handling of the above exception, another exception occurred:$",
        r"\A(?!.*OSError: It looks like)",
    ],
    "keyboard-interrupt": [
        r"The server is fired up and ready to roll!",
        r"^asyncio\.exceptions\.CancelledError$",
        r"^KeyboardInterrupt$",
    ],
}


def check(name, text):
    problems = []
    for pattern in CHECKS.get(name, []):
        flags = re.M | (re.S if pattern.startswith("\\A") else 0)
        if not re.search(pattern, text, flags):
            problems.append(f"missing: {pattern}")
    if name == "killed-mid-traceback":
        tail = text.rstrip("\n").splitlines()[-1]
        if not tail.startswith(("  File ", "    ")):
            problems.append(f"does not end inside the frames: {tail!r}")
    if "/tmp/" in text or "/work/" in text or "pyshapes" in text or "sitecustomize" in text:
        problems.append("a path of the generator leaked into the output")
    n = text.count("\n")
    if n > MAX_LINES:
        problems.append(f"{n} lines (more than {MAX_LINES})")
    if "File \"/usr/local/lib/python3.11/dist-packages/" in text:
        # Every traceback frame of a stand-in module must show its source line.
        lines = text.splitlines()
        for i, line in enumerate(lines):
            m = re.match(r'^( *(?:\| )*)  File "/usr/local/lib/python3\.11/dist-packages/[^"]+", line \d+, in ', line)
            if m and (i + 1 >= len(lines) or not lines[i + 1].startswith(m.group(1) + "    ")):
                if i + 1 < len(lines):
                    problems.append(f"frame without a source line: {line.strip()}")
    return problems


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def child_python():
    override = os.environ.get("PYSHAPES_PYTHON")
    candidates = [override] if override else ["/usr/bin/python3", sys.executable]
    for exe in candidates:
        if not exe or not os.path.exists(exe):
            continue
        out = subprocess.run([exe, "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
        if out.stdout.strip() == "(3, 11)" or override:
            return exe
    raise SystemExit("need a Python 3.11 interpreter (set PYSHAPES_PYTHON)")


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    outdir = argv[0]
    wanted = set(argv[1:])
    unknown = wanted - {name for name, _ in SHAPES}
    if unknown:
        raise SystemExit(f"unknown shapes: {', '.join(sorted(unknown))}")
    os.makedirs(outdir, exist_ok=True)
    python = child_python()
    print(f"child interpreter: {python}")
    failed = []
    with tempfile.TemporaryDirectory(prefix="pyshapes-") as workdir:
        harness = Harness(python, workdir)
        for name, make in SHAPES:
            if wanted and name not in wanted:
                continue
            out = os.path.join(outdir, f"py-{name}.log")
            started = time.monotonic()
            info = make(harness, out)
            text = read_text(out)
            problems = check(name, text)
            status = "ok" if not problems else "PROBLEMS"
            print(f"{out}: {text.count(chr(10))} lines, {time.monotonic() - started:.1f}s, {status}")
            for key, value in (info or {}).items():
                print(f"    {key}: {value}")
            for p in problems:
                print(f"    {p}")
            if problems:
                failed.append(name)
    if failed:
        print(f"shapes with problems: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
