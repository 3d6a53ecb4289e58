import logging

logger = logging.getLogger(__name__)


class MooncakeKVManager:
    def maybe_send_extra(self, req, state_indices):
        if self.pp_size > 1:
            raise RuntimeError("PD disagg: PP>1 not supported for MiniMax sparse index yet.")
        if self.attn_tp_size != self.decode_attn_tp_size:
            raise RuntimeError(
                "PD disagg: heterogeneous TP not supported for MiniMax sparse index yet."
            )

    def transfer_worker(self, queue):
        try:
            self.send(queue.get())
        except Exception as e:
            raise RuntimeError(
                f"Transfer thread failed because of {e}. Prefill instance with bootstrap_port={self.bootstrap_port} is dead."
            )
