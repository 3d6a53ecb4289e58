"""Message templates of sglang, each in code of our own, to check that the
learner reads them as the reference extractor did (see learn_test.go)."""
import logging

logger = logging.getLogger(__name__)


def case_01(self, attention_backend):
    assert (
        attention_backend in self.supported
    ), f"{self.name} CP does not support attention_backend={attention_backend!r}"


def case_02(self, recv_obj):
    if recv_obj.req_id != self.recv_req.rid:
        logger.warning(
            f"Dropping stale embedding data: expected rid={self.recv_req.rid}, "
            f"got rid={recv_obj.req_id} (likely from ZMQ port reuse)"
        )


def case_03(params_dtype):
    assert params_dtype == "bf16", (
        f"Params dtype should be torch.bfloat16, but got: {params_dtype}"
    )


def case_04(modifier, dim_token):
    raise ValueError(
        f"Duplicate axis {modifier.axis.value!r} in dim spec: {dim_token!r}"
    )


def case_05(qkv, cache_indices):
    assert qkv.shape[0] == cache_indices.shape[0], (
        "KDA packed decode requires one token per sequence (T=1): "
        f"got {qkv.shape[0]} tokens for {cache_indices.shape[0]} requests."
    )


def case_06(seq_len, context_length, num_frame, frame_size):
    assert seq_len == context_length + num_frame * frame_size, \
        f"Query Shape: {seq_len} is not equivalent to {context_length} + {num_frame} * {frame_size}"


def case_07(req_all_ids_lens_cpu, bs):
    raise RuntimeError(
        f"kv-canary: req_all_ids_lens length {int(req_all_ids_lens_cpu.shape[0])} "
        f"!= batch_size {bs}; ForwardBatch snapshot diverged"
    )


def case_08(size_mib, pool_mib):
    logger.warning(
        "CUDA VMM multimodal pool has no free chunk for a %.2f MiB tensor "
        "(pool size: %.2f MiB); falling back to CPU transport. Increase "
        "SGLANG_MM_FEATURE_CACHE_MB to avoid inline request broadcasts.",
        size_mib,
        pool_mib,
    )


def case_09(path, stored, current):
    logger.warning(
        "Presharded checkpoint at %s was dumped with a different shard config "
        "than the current launch (stored=%s, current=%s). Treating as a cache "
        "miss and re-dumping.",
        path, stored, current,
    )


def case_10(block):
    logger.warning(
        "MXFP8 overriding weight_block_size=%s from config.json -> [1, 32].", block
    )


def case_11(self):
    logger.warning(
        "%s does not implement is_stride_page_aligned(); assuming not aligned. "
        "O_DIRECT with a file-based NIXL backend will fall back to copy mode "
        "for this pool.",
        type(self).__name__,
    )


def case_12(diff):
    logger.warning("[Diffusion BCG]   differing fields (serving vs captured): %s", diff)


def case_13(mode):
    logger.warning(
        "--speculative-dspark-align-verify-tokens-to-graph-tier only takes effect "
        "with SGLANG_RAGGED_VERIFY_MODE=compact (got %r); it will be a no-op.",
        mode,
    )


def case_14(packed_q_w, size_k, size_n, pack_factor):
    assert packed_q_w.shape == (size_k, size_n), "packed_q_w.shape = {} size_k = {}, size_n = {} pack_Factor = {}".format(
        packed_q_w.shape, size_k, size_n, pack_factor
    )


def case_15(numerator, denominator):
    assert numerator % denominator == 0, "{} is not divisible by {}".format(
        numerator, denominator
    )


def case_16(module):
    raise ValueError("Module instance {} is not unique ".format(module))


def case_17(budget):
    raise ValueError(
        "thinking.budget_tokens must be >= 1024 (got {})".format(budget)
    )


def case_18(formats):
    raise NotImplementedError(
        "Unsupported MiniMax-H3 Comfy quantization format(s): " + ", ".join(formats)
    )


def case_19(mismatched):
    raise RuntimeError(
        f"[IpcModelLoader] {len(mismatched)} tensor(s) have shape/dtype mismatch "
        "between the IPC daemon and the meta-initialized model. The quantization "
        "method passed the IPC allowlist gate (check_ipc_quant_support), so this "
        "is NOT an unsupported-quant case \N{EM DASH} it indicates the daemon's weight "
        "fingerprint is incomplete or the daemon/client configs drifted (a bug to "
        "fix), not merely uninitialized weights:\n" + "\n".join(mismatched)
    )


def case_20(func):
    raise NVMLLibraryMismatchError(
        "Unversioned function called and the pyNVML version does not match the "
        "NVML lib version. Either use matching pyNVML and NVML lib versions or "
        "use a versioned function such as " + func.__name__ + "_v2"
    )


def case_21(errors):
    raise Exception(f"{len(errors)} errors happen:\n" + "\n\n".join(errors))


def case_22():
    raise ValueError("Only 'absolute' position_embedding_type " + "is supported")


def case_23(raw):
    raise ValueError(
        "MINIMAX_H3_VAE_DECODER_TEMPORAL_CAT_DTYPE must be one of "
        "fp16|bf16|fp32|keep, got %r" % (raw,)
    )
