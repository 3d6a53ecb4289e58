package pyrepr

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fieldSpec is one field of a repr to build: its repr and the value it
// must parse to.
type fieldSpec struct {
	name, repr string
	want       Value
}

// sglangDefaults is every dest of sglang's ServerArgs (476 of them, from
// server_args.py at cce0a1244) with its default as Python prints it.
var sglangDefaults = []fieldSpec{
	{"model_path", `None`, nil},
	{"tokenizer_path", `None`, nil},
	{"tokenizer_mode", `'auto'`, "auto"},
	{"tokenizer_backend", `'huggingface'`, "huggingface"},
	{"tokenizer_worker_num", `1`, int64(1)},
	{"detokenizer_worker_num", `1`, int64(1)},
	{"skip_tokenizer_init", `False`, false},
	{"load_format", `'auto'`, "auto"},
	{"model_loader_extra_config", `'{}'`, "{}"},
	{"trust_remote_code", `False`, false},
	{"context_length", `None`, nil},
	{"is_embedding", `False`, false},
	{"enable_multimodal", `None`, nil},
	{"revision", `None`, nil},
	{"model_impl", `'auto'`, "auto"},
	{"model_config_parser", `'auto'`, "auto"},
	{"json_model_override_args", `'{}'`, "{}"},
	{"dtype", `'auto'`, "auto"},
	{"quantization", `None`, nil},
	{"quantization_param_path", `None`, nil},
	{"kv_cache_dtype", `'auto'`, "auto"},
	{"enable_fp32_lm_head", `False`, false},
	{"modelopt_quant", `None`, nil},
	{"modelopt_checkpoint_restore_path", `None`, nil},
	{"modelopt_checkpoint_save_path", `None`, nil},
	{"modelopt_export_path", `None`, nil},
	{"quantize_and_serve", `False`, false},
	{"rl_quant_profile", `None`, nil},
	{"enable_tf32_matmul", `False`, false},
	{"mem_fraction_static", `None`, nil},
	{"max_running_requests", `None`, nil},
	{"max_queued_requests", `None`, nil},
	{"max_total_tokens", `None`, nil},
	{"chunked_prefill_size", `None`, nil},
	{"prefill_decode_interval", `0`, int64(0)},
	{"enable_dynamic_chunking", `False`, false},
	{"max_prefill_tokens", `16384`, int64(16384)},
	{"prefill_max_requests", `None`, nil},
	{"schedule_policy", `'fcfs'`, "fcfs"},
	{"enable_priority_scheduling", `False`, false},
	{"disable_priority_preemption", `False`, false},
	{"default_priority_value", `None`, nil},
	{"abort_on_priority_when_disabled", `False`, false},
	{"schedule_low_priority_values_first", `False`, false},
	{"priority_scheduling_preemption_threshold", `10`, int64(10)},
	{"retraction_policy", `'length'`, "length"},
	{"schedule_conservativeness", `1.0`, float64(1.0)},
	{"page_size", `None`, nil},
	{"c128_page_size", `16`, int64(16)},
	{"swa_full_tokens_ratio", `0.8`, float64(0.8)},
	{"disable_hybrid_swa_memory", `False`, false},
	{"radix_eviction_policy", `'lru'`, "lru"},
	{"prefill_only_disable_kv_cache", `False`, false},
	{"disable_radix_cache", `False`, false},
	{"enable_page_major_kv_layout", `False`, false},
	{"enable_unified_memory", `False`, false},
	{"disable_chunked_prefix_cache", `False`, false},
	{"disable_overlap_schedule", `False`, false},
	{"num_continuous_decode_steps", `1`, int64(1)},
	{"scheduler_recv_interval", `1`, int64(1)},
	{"enable_mixed_chunk", `False`, false},
	{"nccl_port", `None`, nil},
	{"dist_timeout", `None`, nil},
	{"dist_init_addr", `None`, nil},
	{"nnodes", `1`, int64(1)},
	{"node_rank", `0`, int64(0)},
	{"tp_size", `1`, int64(1)},
	{"dcp_size", `1`, int64(1)},
	{"pp_size", `1`, int64(1)},
	{"pp_max_micro_batch_size", `None`, nil},
	{"pp_async_batch_depth", `0`, int64(0)},
	{"dp_size", `1`, int64(1)},
	{"load_balance_method", `'auto'`, "auto"},
	{"attn_cp_size", `1`, int64(1)},
	{"moe_dp_size", `1`, int64(1)},
	{"dwdp_size", `1`, int64(1)},
	{"dcp_comm_backend", `'ag_rs'`, "ag_rs"},
	{"dcp_replicate_q_proj", `None`, nil},
	{"enable_prefill_cp", `False`, false},
	{"cp_strategy", `None`, nil},
	{"enable_dsa_cache_layer_split", `False`, false},
	{"enable_cp_decode_attn_tp", `False`, false},
	{"enable_dp_attention", `False`, false},
	{"enable_dp_attention_local_control_broadcast", `False`, false},
	{"enable_dp_lm_head", `False`, false},
	{"enable_tp_lm_head_all_to_all", `None`, nil},
	{"enable_attn_tp_input_scattered", `False`, false},
	{"disable_attn_tp_gather", `False`, false},
	{"enable_p2p_check", `False`, false},
	{"device", `None`, nil},
	{"base_gpu_id", `0`, int64(0)},
	{"gpu_id_step", `1`, int64(1)},
	{"random_seed", `None`, nil},
	{"mlx_enable_sampling", `False`, false},
	{"watchdog_timeout", `300`, int64(300)},
	{"soft_watchdog_timeout", `None`, nil},
	{"sleep_on_idle", `False`, false},
	{"use_ray", `False`, false},
	{"numa_node", `None`, nil},
	{"gc_threshold", `None`, nil},
	{"host", `'127.0.0.1'`, "127.0.0.1"},
	{"port", `30000`, int64(30000)},
	{"fastapi_root_path", `''`, ""},
	{"smg_grpc_mode", `False`, false},
	{"grpc_mode", `False`, false},
	{"grpc_port", `None`, nil},
	{"sidecar", `None`, nil},
	{"sidecar_args", `None`, nil},
	{"skip_server_warmup", `False`, false},
	{"warmups", `None`, nil},
	{"enable_http2", `False`, false},
	{"http2_max_concurrent_streams", `200`, int64(200)},
	{"ssl_keyfile", `None`, nil},
	{"ssl_certfile", `None`, nil},
	{"ssl_ca_certs", `None`, nil},
	{"ssl_keyfile_password", `None`, nil},
	{"enable_ssl_refresh", `False`, false},
	{"api_key", `None`, nil},
	{"admin_api_key", `None`, nil},
	{"served_model_name", `None`, nil},
	{"weight_version", `'default'`, "default"},
	{"chat_template", `None`, nil},
	{"hf_chat_template_name", `None`, nil},
	{"completion_template", `None`, nil},
	{"file_storage_path", `'sglang_storage'`, "sglang_storage"},
	{"enable_cache_report", `False`, false},
	{"default_chat_template_kwargs", `None`, nil},
	{"strip_thinking_cache", `False`, false},
	{"enable_strict_thinking", `False`, false},
	{"tool_server", `None`, nil},
	{"sampling_defaults", `'model'`, "model"},
	{"asr_max_buffer_seconds", `60`, int64(60)},
	{"asr_max_concurrent_sessions", `32`, int64(32)},
	{"preferred_sampling_params", `None`, nil},
	{"allow_auto_truncate", `False`, false},
	{"stream_interval", `1`, int64(1)},
	{"batch_notify_size", `16`, int64(16)},
	{"stream_response_default_include_usage", `False`, false},
	{"incremental_streaming_output", `False`, false},
	{"enable_streaming_session", `False`, false},
	{"enable_session_radix_cache", `False`, false},
	{"log_level", `'info'`, "info"},
	{"log_level_http", `None`, nil},
	{"log_requests", `False`, false},
	{"log_requests_level", `2`, int64(2)},
	{"log_requests_format", `'text'`, "text"},
	{"log_requests_target", `None`, nil},
	{"uvicorn_access_log_exclude_prefixes", `[]`, []Value{}},
	{"crash_dump_folder", `None`, nil},
	{"show_time_cost", `False`, false},
	{"enable_metrics", `False`, false},
	{"smg_http_sidecar_port", `None`, nil},
	{"enable_mfu_metrics", `False`, false},
	{"enable_metrics_for_all_schedulers", `False`, false},
	{"load_snapshot_publish_interval", `15`, int64(15)},
	{"tokenizer_metrics_custom_labels_header", `'x-custom-labels'`, "x-custom-labels"},
	{"tokenizer_metrics_allowed_custom_labels", `None`, nil},
	{"extra_metric_labels", `None`, nil},
	{"bucket_time_to_first_token", `None`, nil},
	{"bucket_inter_token_latency", `None`, nil},
	{"bucket_e2e_request_latency", `None`, nil},
	{"prompt_tokens_buckets", `None`, nil},
	{"generation_tokens_buckets", `None`, nil},
	{"gc_warning_threshold_secs", `0.0`, float64(0.0)},
	{"decode_log_interval", `40`, int64(40)},
	{"enable_request_time_stats_logging", `False`, false},
	{"kv_events_config", `None`, nil},
	{"enable_forward_pass_metrics", `False`, false},
	{"forward_pass_metrics_worker_id", `''`, ""},
	{"forward_pass_metrics_ipc_name", `None`, nil},
	{"enable_trace", `False`, false},
	{"trace_modules", `'request'`, "request"},
	{"otlp_traces_endpoint", `'localhost:4317'`, "localhost:4317"},
	{"export_metrics_to_file", `False`, false},
	{"export_metrics_to_file_dir", `None`, nil},
	{"constrained_json_whitespace_pattern", `None`, nil},
	{"constrained_json_disable_any_whitespace", `False`, false},
	{"attention_backend", `None`, nil},
	{"decode_attention_backend", `None`, nil},
	{"prefill_attention_backend", `None`, nil},
	{"sampling_backend", `None`, nil},
	{"grammar_backend", `None`, nil},
	{"radix_cache_backend", `None`, nil},
	{"mm_attention_backend", `None`, nil},
	{"fp8_gemm_runner_backend", `'auto'`, "auto"},
	{"fp4_gemm_runner_backend", `'auto'`, "auto"},
	{"bf16_gemm_backend", `'auto'`, "auto"},
	{"dsa_prefill_backend", `None`, nil},
	{"dsv4_prefill_backend", `'auto'`, "auto"},
	{"dsa_decode_backend", `None`, nil},
	{"dsa_paged_mqa_logits_backend", `'auto'`, "auto"},
	{"dsa_topk_backend", `'sgl-kernel'`, "sgl-kernel"},
	{"disable_flashinfer_autotune", `False`, false},
	{"flashinfer_autotune_skip_ops", `None`, nil},
	{"mamba_backend", `'triton'`, "triton"},
	{"cuda_graph_config", `None`, nil},
	{"cuda_graph_backend_decode", `None`, nil},
	{"cuda_graph_backend_prefill", `None`, nil},
	{"cuda_graph_max_bs_decode", `None`, nil},
	{"cuda_graph_max_bs_prefill", `None`, nil},
	{"cuda_graph_bs_decode", `None`, nil},
	{"cuda_graph_bs_prefill", `None`, nil},
	{"cuda_graph_tc_compiler", `None`, nil},
	{"disable_prefill_cuda_graph", `False`, false},
	{"disable_decode_cuda_graph", `False`, false},
	{"disable_cuda_graph_padding", `False`, false},
	{"enable_profile_cuda_graph", `False`, false},
	{"enable_cudagraph_gc", `False`, false},
	{"debug_cuda_graph", `False`, false},
	{"enable_layerwise_nvtx_marker", `False`, false},
	{"enable_nccl_nvls", `False`, false},
	{"enable_symm_mem", `False`, false},
	{"triton_attention_reduce_in_fp32", `False`, false},
	{"triton_attention_num_kv_splits", `8`, int64(8)},
	{"triton_attention_split_tile_size", `None`, nil},
	{"flashinfer_mla_disable_ragged", `False`, false},
	{"enable_fused_qk_norm_rope", `False`, false},
	{"enable_precise_embedding_interpolation", `False`, false},
	{"enable_fused_moe_sum_all_reduce", `False`, false},
	{"enable_deepseek_v4_fp4_indexer", `False`, false},
	{"disable_custom_all_reduce", `False`, false},
	{"enable_mscclpp", `False`, false},
	{"enable_torch_symm_mem", `False`, false},
	{"enable_scattered_sconv", `False`, false},
	{"pre_warm_nccl", `False`, false},
	{"enable_quant_communications", `False`, false},
	{"enforce_disable_flashinfer_allreduce_fusion", `False`, false},
	{"flashinfer_allreduce_fusion_backend", `None`, nil},
	{"enable_aiter_allreduce_fusion", `False`, false},
	{"enable_torch_compile", `False`, false},
	{"enable_torch_compile_debug_mode", `False`, false},
	{"torch_compile_max_bs", `32`, int64(32)},
	{"speculative_algorithm", `None`, nil},
	{"speculative_draft_model_path", `None`, nil},
	{"speculative_draft_model_revision", `None`, nil},
	{"speculative_draft_load_format", `None`, nil},
	{"speculative_num_steps", `None`, nil},
	{"speculative_eagle_topk", `None`, nil},
	{"speculative_num_draft_tokens", `None`, nil},
	{"speculative_dflash_block_size", `None`, nil},
	{"speculative_dspark_block_size", `None`, nil},
	{"speculative_dspark_sps_table_path", `None`, nil},
	{"speculative_dspark_confidence_sts_path", `None`, nil},
	{"speculative_dspark_align_verify_tokens_to_graph_tier", `False`, false},
	{"speculative_accept_threshold_single", `1.0`, float64(1.0)},
	{"speculative_accept_threshold_acc", `1.0`, float64(1.0)},
	{"speculative_use_rejection_sampling", `False`, false},
	{"speculative_token_map", `None`, nil},
	{"speculative_attention_mode", `'prefill'`, "prefill"},
	{"speculative_draft_attention_backend", `None`, nil},
	{"speculative_draft_kv_cache_dtype", `None`, nil},
	{"speculative_draft_window_size", `None`, nil},
	{"speculative_moe_runner_backend", `None`, nil},
	{"speculative_moe_a2a_backend", `None`, nil},
	{"speculative_draft_model_quantization", `None`, nil},
	{"speculative_skip_dp_mlp_sync", `False`, false},
	{"enable_multi_layer_eagle", `False`, false},
	{"speculative_adaptive", `False`, false},
	{"speculative_adaptive_config", `None`, nil},
	{"decoupled_spec_bind_endpoint", `None`, nil},
	{"decoupled_spec_connect_endpoints", `None`, nil},
	{"decoupled_spec_rank", `None`, nil},
	{"decoupled_spec_role", `'null'`, "null"},
	{"spec_trace_dir", `None`, nil},
	{"speculative_ngram_min_bfs_breadth", `1`, int64(1)},
	{"speculative_ngram_max_bfs_breadth", `10`, int64(10)},
	{"speculative_ngram_match_type", `'BFS'`, "BFS"},
	{"speculative_ngram_max_trie_depth", `18`, int64(18)},
	{"speculative_ngram_capacity", `10000000`, int64(10000000)},
	{"speculative_ngram_external_corpus_path", `None`, nil},
	{"speculative_ngram_external_sam_budget", `0`, int64(0)},
	{"speculative_ngram_external_corpus_max_tokens", `10000000`, int64(10000000)},
	{"ep_size", `1`, int64(1)},
	{"moe_a2a_backend", `'none'`, "none"},
	{"enable_w4a4_mxfp4_megamoe", `False`, false},
	{"moe_runner_backend", `'auto'`, "auto"},
	{"flashinfer_mxfp4_moe_precision", `'default'`, "default"},
	{"deepep_mode", `'auto'`, "auto"},
	{"fuseep_mode", `2`, int64(2)},
	{"deepep_dispatcher_output_dtype", `'auto'`, "auto"},
	{"ep_num_redundant_experts", `0`, int64(0)},
	{"ep_dispatch_algorithm", `None`, nil},
	{"init_expert_location", `'trivial'`, "trivial"},
	{"enable_eplb", `False`, false},
	{"eplb_algorithm", `'auto'`, "auto"},
	{"eplb_rebalance_num_iterations", `1000`, int64(1000)},
	{"eplb_rebalance_layers_per_chunk", `None`, nil},
	{"eplb_min_rebalancing_utilization_threshold", `1.0`, float64(1.0)},
	{"expert_distribution_recorder_mode", `None`, nil},
	{"expert_distribution_recorder_buffer_size", `None`, nil},
	{"expert_balancedness_report_mode", `'off'`, "off"},
	{"deepep_config", `None`, nil},
	{"moe_dense_tp_size", `None`, nil},
	{"elastic_ep_backend", `None`, nil},
	{"enable_elastic_expert_backup", `False`, false},
	{"mooncake_ib_device", `None`, nil},
	{"enable_waterfill", `False`, false},
	{"ep_join_mode", `None`, nil},
	{"ep_join_rank_offset", `0`, int64(0)},
	{"elastic_ep_initial_size", `None`, nil},
	{"max_ep_size", `None`, nil},
	{"elastic_ep_scale_timeout", `600`, int64(600)},
	{"elastic_ep_rejoin", `False`, false},
	{"disable_flashinfer_cutlass_moe_fp4_allgather", `False`, false},
	{"disable_shared_experts_fusion", `False`, false},
	{"enforce_shared_experts_fusion", `False`, false},
	{"max_mamba_cache_size", `None`, nil},
	{"mamba_ssm_dtype", `None`, nil},
	{"mamba_max_states_per_path", `-1`, int64(-1)},
	{"enable_mamba_cache_stochastic_rounding", `False`, false},
	{"mamba_cache_philox_rounds", `0`, int64(0)},
	{"mamba_full_memory_ratio", `0.9`, float64(0.9)},
	{"mamba_radix_cache_strategy", `'auto'`, "auto"},
	{"mamba_track_interval", `256`, int64(256)},
	{"enable_int8_mamba_checkpoint", `False`, false},
	{"int8_mamba_ckpt_size", `None`, nil},
	{"linear_attn_backend", `'triton'`, "triton"},
	{"linear_attn_decode_backend", `None`, nil},
	{"linear_attn_prefill_backend", `None`, nil},
	{"linear_attn_verify_backend", `None`, nil},
	{"enable_linear_replayssm", `False`, false},
	{"linear_replayssm_cache_len", `16`, int64(16)},
	{"enable_linear_replayssm_spec", `False`, false},
	{"enable_hierarchical_cache", `False`, false},
	{"hicache_host_memory_mode", `'cache'`, "cache"},
	{"hicache_ratio", `None`, nil},
	{"hicache_size", `0`, int64(0)},
	{"hicache_write_policy", `'write_through'`, "write_through"},
	{"hicache_io_backend", `'kernel'`, "kernel"},
	{"hicache_mem_layout", `'page_first'`, "page_first"},
	{"hicache_storage_backend", `None`, nil},
	{"hicache_storage_prefetch_policy", `'timeout'`, "timeout"},
	{"hicache_storage_backend_extra_config", `None`, nil},
	{"enable_hisparse", `False`, false},
	{"hisparse_config", `None`, nil},
	{"enable_broadcast_mm_inputs_process", `False`, false},
	{"enable_prefix_mm_cache", `False`, false},
	{"mm_enable_dp_encoder", `False`, false},
	{"mm_process_config", `None`, nil},
	{"mm_processor_worker_num", `0`, int64(0)},
	{"mm_io_worker_num", `0`, int64(0)},
	{"allowed_media_domains", `[]`, []Value{}},
	{"media_url_max_file_size_mb", `64`, int64(64)},
	{"mm_preprocess_cache_size_mb", `None`, nil},
	{"trust_mm_content_hashes", `False`, false},
	{"limit_mm_data_per_request", `None`, nil},
	{"enable_mm_global_cache", `False`, false},
	{"image_processor_backend", `'auto'`, "auto"},
	{"mm_global_cache_backend", `'mooncake'`, "mooncake"},
	{"disable_fast_image_processor", `False`, false},
	{"mm_feature_transport", `None`, nil},
	{"keep_mm_feature_on_device", `False`, false},
	{"enable_lora", `None`, nil},
	{"enable_lora_overlap_loading", `None`, nil},
	{"max_lora_rank", `None`, nil},
	{"lora_target_modules", `None`, nil},
	{"lora_paths", `None`, nil},
	{"max_loaded_loras", `None`, nil},
	{"max_loras_per_batch", `8`, int64(8)},
	{"lora_eviction_policy", `'lru'`, "lru"},
	{"lora_backend", `'csgmv'`, "csgmv"},
	{"max_lora_chunk_size", `16`, int64(16)},
	{"experts_shared_outer_loras", `None`, nil},
	{"lora_use_virtual_experts", `False`, false},
	{"lora_strict_loading", `False`, false},
	{"lora_drain_wait_threshold", `0.0`, float64(0.0)},
	{"enable_two_batch_overlap", `False`, false},
	{"enable_single_batch_overlap", `False`, false},
	{"tbo_token_distribution_threshold", `0.48`, float64(0.48)},
	{"cpu_offload_gb", `0`, int64(0)},
	{"offload_group_size", `-1`, int64(-1)},
	{"offload_num_in_group", `1`, int64(1)},
	{"offload_prefetch_step", `1`, int64(1)},
	{"offload_mode", `'cpu'`, "cpu"},
	{"enable_lmcache", `False`, false},
	{"lmcache_config_file", `None`, nil},
	{"enable_flexkv", `False`, false},
	{"flexkv_config_file", `None`, nil},
	{"kt_weight_path", `None`, nil},
	{"kt_method", `'AMXINT4'`, "AMXINT4"},
	{"kt_cpuinfer", `None`, nil},
	{"kt_threadpool_count", `2`, int64(2)},
	{"kt_num_gpu_experts", `None`, nil},
	{"kt_max_deferred_experts_per_token", `None`, nil},
	{"dllm_algorithm", `None`, nil},
	{"dllm_algorithm_config", `None`, nil},
	{"dllm_fdfo", `True`, true},
	{"disaggregation_mode", `'null'`, "null"},
	{"disaggregation_transfer_backend", `'mooncake'`, "mooncake"},
	{"disaggregation_bootstrap_port", `8998`, int64(8998)},
	{"disaggregation_ib_device", `None`, nil},
	{"disaggregation_decode_enable_radix_cache", `False`, false},
	{"disaggregation_decode_enable_offload_kvcache", `False`, false},
	{"disaggregation_decode_retraction_backup", `None`, nil},
	{"num_reserved_decode_tokens", `512`, int64(512)},
	{"disaggregation_decode_extra_slots", `None`, nil},
	{"disaggregation_decode_polling_interval", `1`, int64(1)},
	{"optimistic_prefill_attempts", `0`, int64(0)},
	{"encoder_only", `False`, false},
	{"language_only", `False`, false},
	{"language_model_only", `False`, false},
	{"encoder_transfer_backend", `'auto'`, "auto"},
	{"encoder_urls", `[]`, []Value{}},
	{"encoder_bootstrap_port", `8997`, int64(8997)},
	{"encoder_register_urls", `[]`, []Value{}},
	{"enable_adaptive_dispatch_to_encoder", `False`, false},
	{"enable_pdmux", `False`, false},
	{"pdmux_config_path", `None`, nil},
	{"sm_group_num", `8`, int64(8)},
	{"startup_weight_load_mode", `'serial'`, "serial"},
	{"custom_weight_loader", `None`, nil},
	{"weight_loader_disable_mmap", `False`, false},
	{"weight_loader_prefetch_checkpoints", `False`, false},
	{"weight_loader_prefetch_num_threads", `4`, int64(4)},
	{"weight_loader_drop_cache_after_load", `False`, false},
	{"remote_instance_weight_loader_seed_instance_ip", `None`, nil},
	{"remote_instance_weight_loader_seed_instance_service_port", `None`, nil},
	{"remote_instance_weight_loader_send_weights_group_ports", `None`, nil},
	{"remote_instance_weight_loader_backend", `'nccl'`, "nccl"},
	{"remote_instance_weight_loader_start_seed_via_transfer_engine", `False`, false},
	{"engine_info_bootstrap_port", `6789`, int64(6789)},
	{"modelexpress_config", `None`, nil},
	{"download_dir", `None`, nil},
	{"model_checksum", `None`, nil},
	{"delete_ckpt_after_loading", `False`, false},
	{"decrypted_config_file", `None`, nil},
	{"decrypted_draft_config_file", `None`, nil},
	{"checkpoint_engine_wait_weights_before_ready", `False`, false},
	{"enable_prefill_delayer", `False`, false},
	{"prefill_delayer_max_delay_passes", `30`, int64(30)},
	{"prefill_delayer_token_usage_low_watermark", `None`, nil},
	{"prefill_delayer_forward_passes_buckets", `None`, nil},
	{"prefill_delayer_wait_seconds_buckets", `None`, nil},
	{"prefill_delayer_queue_min_ratio", `None`, nil},
	{"prefill_delayer_max_delay_ms", `None`, nil},
	{"min_free_slots_delay", `None`, nil},
	{"enable_deterministic_inference", `False`, false},
	{"rl_on_policy_target", `None`, nil},
	{"kv_canary", `'none'`, "none"},
	{"kv_canary_sweep_interval", `0`, int64(0)},
	{"enable_dynamic_batch_tokenizer", `False`, false},
	{"dynamic_batch_tokenizer_batch_size", `32`, int64(32)},
	{"dynamic_batch_tokenizer_batch_timeout", `0.002`, float64(0.002)},
	{"enable_tokenizer_batch_encode", `False`, false},
	{"disable_tokenizer_batch_decode", `False`, false},
	{"debug_tensor_dump_output_folder", `None`, nil},
	{"debug_tensor_dump_layers", `None`, nil},
	{"debug_tensor_dump_input_file", `None`, nil},
	{"enable_memory_saver", `False`, false},
	{"enable_weights_cpu_backup", `False`, false},
	{"enable_draft_weights_cpu_backup", `False`, false},
	{"enable_custom_logit_processor", `False`, false},
	{"enable_return_hidden_states", `False`, false},
	{"return_hidden_states_mode", `None`, nil},
	{"enable_return_routed_experts", `False`, false},
	{"enable_return_indexer_topk", `False`, false},
	{"disable_outlines_disk_cache", `False`, false},
	{"enable_mis", `False`, false},
	{"weight_cache_mode", `'off'`, "off"},
	{"weight_cache_socket", `None`, nil},
	{"weight_cache_timeout", `1800`, int64(1800)},
	{"forward_hooks", `None`, nil},
	{"msprobe_dump_config", `None`, nil},
	{"reasoning_parser", `None`, nil},
	{"tool_call_parser", `None`, nil},
	{"kv_canary_real_data", `'none'`, "none"},
	{"config", `None`, nil},
	{"enable_expert_distribution_metrics", `None`, nil},
	{"prefill_round_robin_balance", `None`, nil},
	{"collect_tokens_histogram", `None`, nil},
	{"disable_cuda_graph", `False`, false},
	{"enable_dsa_prefill_context_parallel", `False`, false},
	{"enable_prefill_context_parallel", `False`, false},
	{"dsa_prefill_cp_mode", `'round-robin-split'`, "round-robin-split"},
	{"prefill_cp_mode", `'in-seq-split'`, "in-seq-split"},
	{"enable_flashinfer_allreduce_fusion", `False`, false},
}

// sglangResolved are the values a TP=2 prefill server resolves, in place
// of the defaults: strings with commas, quotes and brackets, dicts and the
// nested cuda_graph_config.
var sglangResolved = []fieldSpec{
	{"model_path", `'Qwen/Qwen3-8B'`, "Qwen/Qwen3-8B"},
	{"tokenizer_path", `'Qwen/Qwen3-8B'`, "Qwen/Qwen3-8B"},
	{"json_model_override_args", `'{"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}'`, `{"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}`},
	{"context_length", `40960`, int64(40960)},
	{"served_model_name", `'Qwen/Qwen3-8B'`, "Qwen/Qwen3-8B"},
	{"chat_template", `'/templates/qwen3, v2 (it\'s "new").jinja'`, `/templates/qwen3, v2 (it's "new").jinja`},
	{"mem_fraction_static", `0.835`, 0.835},
	{"max_running_requests", `4096`, int64(4096)},
	{"chunked_prefill_size", `8192`, int64(8192)},
	{"device", `'cuda'`, "cuda"},
	{"tp_size", `2`, int64(2)},
	{"random_seed", `1043595126`, int64(1043595126)},
	{"enable_metrics", `True`, true},
	{"dist_init_addr", `'10.0.0.2:25000'`, "10.0.0.2:25000"},
	{"attention_backend", `'fa3'`, "fa3"},
	{"tool_call_parser", `'qwen25'`, "qwen25"},
	{"reasoning_parser", `'qwen3'`, "qwen3"},
	{"default_chat_template_kwargs", `{'enable_thinking': False}`, map[string]Value{"enable_thinking": false}},
	{"preferred_sampling_params", `{'stop': ['</s>', "it's"], 'temperature': 0.6, 'top_p': 0.95}`,
		map[string]Value{"stop": []Value{"</s>", "it's"}, "temperature": 0.6, "top_p": 0.95}},
	{"hicache_storage_backend_extra_config", `'{"master_server_address": "10.0.0.3:50051"}'`, `{"master_server_address": "10.0.0.3:50051"}`},
	{"disaggregation_mode", `'prefill'`, "prefill"},
	{"cuda_graph_config", `CudaGraphConfig(decode=PhaseConfig(backend='full', max_bs=256, bs=[1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 128, 256]), prefill=PhaseConfig(backend='disabled', max_bs=None, bs=None))`,
		&Call{Name: "CudaGraphConfig", Order: []string{"decode", "prefill"}, Args: map[string]Value{
			"decode": &Call{Name: "PhaseConfig", Order: []string{"backend", "max_bs", "bs"}, Args: map[string]Value{
				"backend": "full", "max_bs": int64(256),
				"bs": []Value{int64(1), int64(2), int64(4), int64(8), int64(16), int64(24), int64(32), int64(40), int64(48), int64(56), int64(64), int64(128), int64(256)}}},
			"prefill": &Call{Name: "PhaseConfig", Order: []string{"backend", "max_bs", "bs"}, Args: map[string]Value{
				"backend": "disabled", "max_bs": nil, "bs": nil}},
		}}},
}

// builtField is a field of a built repr: where its name starts and where
// the comma or parenthesis after its value is.
type builtField struct {
	fieldSpec
	start, delim int
}

// buildRepr joins fields into "ServerArgs(name=value, ...)".
func buildRepr(fields []fieldSpec) (string, []builtField) {
	var b strings.Builder
	b.WriteString("ServerArgs(")
	out := make([]builtField, len(fields))
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		out[i].fieldSpec, out[i].start = f, b.Len()
		b.WriteString(f.name + "=" + f.repr)
		out[i].delim = b.Len()
	}
	b.WriteString(")")
	return b.String(), out
}

// sglangLine returns the repr of a resolved configuration: sglang's
// defaults with sglangResolved in their place.
func sglangLine(t testing.TB) (string, []builtField) {
	t.Helper()
	resolved := map[string]fieldSpec{}
	for _, f := range sglangResolved {
		resolved[f.name] = f
	}
	fields := make([]fieldSpec, len(sglangDefaults))
	for i, f := range sglangDefaults {
		if r, ok := resolved[f.name]; ok {
			f = r
			delete(resolved, f.name)
		}
		fields[i] = f
	}
	if len(resolved) != 0 {
		t.Fatalf("resolved fields that are not dests: %v", resolved)
	}
	return buildRepr(fields)
}

// trickyFields is a short repr with one field of each hard form, to cut
// at every byte.
var trickyFields = []fieldSpec{
	{"a", `'it\'s, (x)'`, "it's, (x)"},
	{"b", `"say \"hi\"\n"`, "say \"hi\"\n"},
	{"c", `b'\x00\xff'`, "\x00\xff"},
	{"d", `'\x41\u00e9\U0001F600\\'`, "Aé😀\\"},
	{"e", `-1.5e-05`, -1.5e-05},
	{"f", `[1, (2,), {3}]`, []Value{int64(1), []Value{int64(2)}, []Value{int64(3)}}},
	{"g", `{'k': [None, True], 1: 'x'}`, map[string]Value{"k": []Value{nil, true}, "1": "x"}},
	{"h", `PhaseConfig(backend='full', bs=[1, 2])`, &Call{Name: "PhaseConfig", Order: []string{"backend", "bs"},
		Args: map[string]Value{"backend": "full", "bs": []Value{int64(1), int64(2)}}}},
	{"i", `<Enum.X: 'x'>`, "<Enum.X: 'x'>"},
	{"j", `device(type='cuda', index=0)`, &Call{Name: "device", Order: []string{"type", "index"},
		Args: map[string]Value{"type": "cuda", "index": int64(0)}}},
	{"k", `-inf`, math.Inf(-1)},
	{"l", `()`, []Value{}},
	{"m", `12345`, int64(12345)},
	{"n", `None`, nil},
}

// valueEqual compares parsed values; NaN equals NaN, and a nil Order an
// empty one.
func valueEqual(a, b Value) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (x == y && math.Signbit(x) == math.Signbit(y) || math.IsNaN(x) && math.IsNaN(y))
	case []Value:
		y, ok := b.([]Value)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !valueEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]Value:
		y, ok := b.(map[string]Value)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !valueEqual(v, w) {
				return false
			}
		}
		return true
	case *Call:
		y, ok := b.(*Call)
		if !ok || x.Name != y.Name || len(x.Order) != len(y.Order) || len(x.Args) != len(y.Args) {
			return false
		}
		for i, k := range x.Order {
			if y.Order[i] != k {
				return false
			}
		}
		return valueEqual(map[string]Value(x.Args), map[string]Value(y.Args))
	}
	return a == b
}

func argsEqual(a, b *ServerArgs) bool {
	if len(a.Order) != len(b.Order) {
		return false
	}
	for i, k := range a.Order {
		if b.Order[i] != k {
			return false
		}
	}
	return valueEqual(a.Fields, b.Fields)
}

// checkFields checks that a repr cut before end gives exactly the fields
// whose comma or closing parenthesis is before the cut, with their values.
func checkFields(t *testing.T, a *ServerArgs, fields []builtField, cut int) {
	t.Helper()
	n := 0
	for _, f := range fields {
		got, ok := a.Fields[f.name]
		switch {
		case f.delim < cut && !ok:
			t.Errorf("cut at %d: %s (ends at %d) missing", cut, f.name, f.delim)
		case f.delim < cut && !valueEqual(got, f.want):
			t.Errorf("cut at %d: %s = %#v, want %#v", cut, f.name, got, f.want)
		case f.delim >= cut && ok:
			t.Errorf("cut at %d: %s (ends at %d) present: %#v", cut, f.name, f.delim, got)
		}
		if f.delim < cut {
			n++
		}
	}
	if len(a.Order) != n || len(a.Fields) != n {
		t.Errorf("cut at %d: %d names, %d fields, want %d", cut, len(a.Order), len(a.Fields), n)
	}
	for i := 0; i < n && i < len(a.Order); i++ {
		if a.Order[i] != fields[i].name {
			t.Errorf("cut at %d: field %d is %s, want %s", cut, i, a.Order[i], fields[i].name)
			break
		}
	}
}

func TestParseServerArgsFullLine(t *testing.T) {
	repr, fields := sglangLine(t)
	line := "[2026-11-29 10:15:02] server_args=" + repr
	text, ok := FindServerArgs([]byte(line))
	if !ok || text != repr {
		t.Fatalf("FindServerArgs = %.40q, %v", text, ok)
	}
	if len(repr) < 12000 {
		t.Errorf("line is %d bytes; sglang's is about 14,000", len(repr))
	}
	a := ParseServerArgs(text)
	if !a.Complete {
		t.Error("not Complete")
	}
	if len(a.Order) != 476 {
		t.Errorf("%d fields, want 476", len(a.Order))
	}
	checkFields(t, a, fields, len(repr)+1)
	if a.Order[0] != "model_path" || a.Order[len(a.Order)-1] != fields[len(fields)-1].name {
		t.Errorf("order from %s to %s", a.Order[0], a.Order[len(a.Order)-1])
	}
	ints := map[string]int64{"tp_size": 2, "pp_size": 1, "port": 30000, "max_prefill_tokens": 16384,
		"chunked_prefill_size": 8192, "watchdog_timeout": 300, "cuda_graph_config.decode.max_bs": 256,
		"cuda_graph_config.decode.bs.12": 256}
	for name, want := range ints {
		if got, ok := a.Int(name); !ok || got != want {
			t.Errorf("Int(%s) = %d, %v, want %d", name, got, ok, want)
		}
	}
	strs := map[string]string{"model_path": "Qwen/Qwen3-8B", "disaggregation_mode": "prefill", "tokenizer_mode": "auto",
		"host": "127.0.0.1", "fastapi_root_path": "", "cuda_graph_config.prefill.backend": "disabled",
		"chat_template": `/templates/qwen3, v2 (it's "new").jinja`}
	for name, want := range strs {
		if got, ok := a.String(name); !ok || got != want {
			t.Errorf("String(%s) = %q, %v, want %q", name, got, ok, want)
		}
	}
	bools := map[string]bool{"skip_tokenizer_init": false, "enable_metrics": true, "default_chat_template_kwargs.enable_thinking": false}
	for name, want := range bools {
		if got, ok := a.Bool(name); !ok || got != want {
			t.Errorf("Bool(%s) = %v, %v, want %v", name, got, ok, want)
		}
	}
	if v, ok := a.Lookup("quantization"); !ok || v != nil {
		t.Errorf("quantization = %#v, %v, want None", v, ok)
	}
	if f, ok := a.Float("mem_fraction_static"); !ok || f != 0.835 {
		t.Errorf("mem_fraction_static = %v, %v", f, ok)
	}
	flags := map[string]string{"tp_size": "2", "mem_fraction_static": "0.835", "schedule_conservativeness": "1.0",
		"dynamic_batch_tokenizer_batch_timeout": "0.002", "allowed_media_domains": "", "enable_metrics": "True",
		"quantization": "None", "cuda_graph_config.decode.bs": "1 2 4 8 16 24 32 40 48 56 64 128 256",
		"default_chat_template_kwargs": `{"enable_thinking": false}`,
		"preferred_sampling_params":    `{"stop": ["</s>", "it's"], "temperature": 0.6, "top_p": 0.95}`,
		"json_model_override_args":     `{"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}`}
	for name, want := range flags {
		if got := a.Flag(name); got != want {
			t.Errorf("Flag(%s) = %q, want %q", name, got, want)
		}
	}
	// The line renders back byte for byte: its dict keys are sorted and
	// its strings quoted as Python quotes them.
	if got := a.Repr(); got != repr {
		i := 0
		for i < len(got) && i < len(repr) && got[i] == repr[i] {
			i++
		}
		t.Errorf("Repr differs at %d: %.60q vs %.60q", i, got[i:], repr[i:])
	}
}

// A line cut anywhere keeps the fields that end before the cut.
func TestParseServerArgsTruncated(t *testing.T) {
	repr, fields := sglangLine(t)
	for cut := 0; cut < len(repr); cut += 97 {
		a := ParseServerArgs(repr[:cut])
		if a.Complete {
			t.Errorf("cut at %d: Complete", cut)
		}
		checkFields(t, a, fields, cut)
	}
	tricky, tfields := buildRepr(trickyFields)
	if a := ParseServerArgs(tricky); !a.Complete {
		t.Errorf("%s: not Complete", tricky)
	}
	for cut := 0; cut <= len(tricky); cut++ {
		a := ParseServerArgs(tricky[:cut])
		if a.Complete != (cut == len(tricky)) {
			t.Errorf("cut at %d: Complete = %v", cut, a.Complete)
		}
		checkFields(t, a, tfields, cut)
	}
}

func TestParseServerArgsDamaged(t *testing.T) {
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	tests := []struct {
		name, in string
		want     map[string]Value
	}{
		{"unknown token", `ServerArgs(a=1, b=@weird, c=2)`, map[string]Value{"a": int64(1), "c": int64(2)}},
		{"apostrophe", `ServerArgs(a=1, b='it's', c=2)`, map[string]Value{"a": int64(1), "c": int64(2)}},
		{"bare word with apostrophe", `ServerArgs(a=don't, b="x, c=1", c=3)`, map[string]Value{"b": "x, c=1", "c": int64(3)}},
		{"two values", `ServerArgs(a=1, b=1 2, c=3)`, map[string]Value{"a": int64(1), "c": int64(3)}},
		{"two strings", `ServerArgs(a='x' 'y', b=2)`, map[string]Value{"b": int64(2)}},
		{"no name", `ServerArgs(a=1, garbage, c=3)`, map[string]Value{"a": int64(1), "c": int64(3)}},
		{"positional", `ServerArgs('x', a=1)`, map[string]Value{"a": int64(1)}},
		{"double comma", `ServerArgs(a=1,, b=2)`, map[string]Value{"a": int64(1), "b": int64(2)}},
		{"double equals", `ServerArgs(a==1, b=2)`, map[string]Value{"b": int64(2)}},
		{"nested damage", `ServerArgs(x=Foo(a=1, b=?), y=2)`, map[string]Value{"y": int64(2)}},
		{"list closed by paren", `ServerArgs(a=[1, 2), b=2)`, map[string]Value{"b": int64(2)}},
		{"tuple closed by bracket", `ServerArgs(a=(1, 2], b=3)`, map[string]Value{"b": int64(3)}},
		{"keyword in list", `ServerArgs(a=1, b=[1, 2, c=3, d=4), e=5)`, map[string]Value{"a": int64(1), "e": int64(5)}},
		{"dict without colon", `ServerArgs(a={'k' 1}, b=2)`, map[string]Value{"b": int64(2)}},
		{"hex and complex", `ServerArgs(a=0x10, b=1j, c=..., d=True)`, map[string]Value{"d": true}},
		{"too deep", `ServerArgs(a=` + deep + `, b=1)`, map[string]Value{"b": int64(1)}},
		{"unclosed angle", `ServerArgs(a=1, b=<foo, c=1)`, map[string]Value{"a": int64(1)}},
		{"unclosed string", `ServerArgs(a=1, b='x, c=1)`, map[string]Value{"a": int64(1)}},
		{"text after", `ServerArgs(a=1) trailing`, map[string]Value{"a": int64(1)}},
		{"fields after the end", `ServerArgs(a=1 ), b=2)`, map[string]Value{"a": int64(1)}},
		{"not a repr", `garbage`, map[string]Value{}},
		{"None", `None`, map[string]Value{}},
		{"empty", ``, map[string]Value{}},
		{"name only", `ServerArgs`, map[string]Value{}},
		{"open only", `ServerArgs(`, map[string]Value{}},
		{"dangling comma", `ServerArgs(a=1,`, map[string]Value{"a": int64(1)}},
		{"dangling backslash", `ServerArgs(a=1, b='\`, map[string]Value{"a": int64(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ParseServerArgs(tt.in)
			if a.Complete {
				t.Error("Complete")
			}
			if !valueEqual(a.Fields, tt.want) || len(a.Order) != len(tt.want) {
				t.Errorf("got %#v (%v), want %#v", a.Fields, a.Order, tt.want)
			}
		})
	}
}

func TestParseServerArgsLiterals(t *testing.T) {
	call := func(name string, kv ...any) *Call {
		c := &Call{Name: name, Args: map[string]Value{}}
		for i := 0; i < len(kv); i += 2 {
			c.Order = append(c.Order, kv[i].(string))
			c.Args[kv[i].(string)] = kv[i+1]
		}
		return c
	}
	i := func(n int64) Value { return n }
	tests := []struct {
		repr string
		want Value
	}{
		{`None`, nil},
		{`True`, true},
		{`False`, false},
		{`0`, i(0)},
		{`42`, i(42)},
		{`-7`, i(-7)},
		{`+3`, i(3)},
		{`9223372036854775807`, i(math.MaxInt64)},
		{`-9223372036854775808`, i(math.MinInt64)},
		{`99999999999999999999`, 1e20},
		{`1.5`, 1.5},
		{`-0.25`, -0.25},
		{`-0.0`, math.Copysign(0, -1)},
		{`1e-05`, 1e-05},
		{`1.5e+16`, 1.5e16},
		{`2E3`, 2e3},
		{`.5`, 0.5},
		{`1e999`, math.Inf(1)},
		{`inf`, math.Inf(1)},
		{`-inf`, math.Inf(-1)},
		{`+inf`, math.Inf(1)},
		{`nan`, math.NaN()},
		{`'abc'`, "abc"},
		{`"abc"`, "abc"},
		{`''`, ""},
		{`"it's"`, "it's"},
		{`'say "hi"'`, `say "hi"`},
		{`'it\'s'`, "it's"},
		{`"\"q\""`, `"q"`},
		{`'a\\b'`, `a\b`},
		{`'line\nnext\ttab'`, "line\nnext\ttab"},
		{`'\x41'`, "A"},
		{`'\u00e9'`, "é"},
		{`'\U0001F600'`, "😀"},
		{`'\r\a\b\f\v\0'`, "\r\a\b\f\v\x00"},
		{`'\101\7'`, "A\a"},
		{`'\q'`, `\q`},
		{`'\xZZ'`, `\xZZ`},
		{`'\u12'`, `\u12`},
		{`'a, b=(c)], {d'`, "a, b=(c)], {d"},
		{`'é ✓'`, "é ✓"},
		{`b'abc'`, "abc"},
		{`b'\x00\xff'`, "\x00\xff"},
		{`b'\u00e9'`, `\u00e9`},
		{`b"it's"`, "it's"},
		{`rb'\d+'`, `\d+`},
		{`r'\n\''`, `\n\'`},
		{`u'x'`, "x"},
		{`[]`, []Value{}},
		{`[1, 'a', None]`, []Value{i(1), "a", nil}},
		{`[1, [2, [3]]]`, []Value{i(1), []Value{i(2), []Value{i(3)}}}},
		{`[1,]`, []Value{i(1)}},
		{`()`, []Value{}},
		{`(1,)`, []Value{i(1)}},
		{`(1, 'x')`, []Value{i(1), "x"}},
		{`(1)`, i(1)},
		{`{1, 2}`, []Value{i(1), i(2)}},
		{`{'a'}`, []Value{"a"}},
		{`set()`, []Value{}},
		{`frozenset({1, 2})`, []Value{i(1), i(2)}},
		{`{}`, map[string]Value{}},
		{`{'k': 1}`, map[string]Value{"k": i(1)}},
		{`{'k': 'v', 1: 'x'}`, map[string]Value{"k": "v", "1": "x"}},
		{`{None: 1, (1, 2): 'p', 1.5: 2, True: 3}`, map[string]Value{"None": i(1), "(1, 2)": "p", "1.5": i(2), "True": i(3)}},
		{`{"dq": {'nested': [1]},}`, map[string]Value{"dq": map[string]Value{"nested": []Value{i(1)}}}},
		{`{b'b': 1, <E.A: 1>: 2}`, map[string]Value{"b": i(1), "<E.A: 1>": i(2)}},
		{`PhaseConfig(backend='full', max_bs=256, bs=[1, 2, 4])`,
			call("PhaseConfig", "backend", "full", "max_bs", i(256), "bs", []Value{i(1), i(2), i(4)})},
		{`CudaGraphConfig(decode=PhaseConfig(backend='full'), prefill=None)`,
			call("CudaGraphConfig", "decode", call("PhaseConfig", "backend", "full"), "prefill", nil)},
		{`device(type='cuda')`, call("device", "type", "cuda")},
		{`device(type='cuda', index=0)`, call("device", "type", "cuda", "index", i(0))},
		{`PosixPath('/tmp/x')`, call("PosixPath", "0", "/tmp/x")},
		{`defaultdict(<class 'list'>, {})`, call("defaultdict", "0", "<class 'list'>", "1", map[string]Value{})},
		{`datetime.timedelta(seconds=30)`, call("datetime.timedelta", "seconds", i(30))},
		{`Foo()`, call("Foo")},
		{`<Enum.X: 'x'>`, "<Enum.X: 'x'>"},
		{`<AttentionBackend.FA3: 'fa3'>`, "<AttentionBackend.FA3: 'fa3'>"},
		{`<Mode.ON: 1>`, "<Mode.ON: 1>"},
		{`<E.A: 'a>b'>`, "<E.A: 'a>b'>"},
		{`<function <lambda> at 0x7f3a>`, "<function <lambda> at 0x7f3a>"},
		{`torch.bfloat16`, "torch.bfloat16"},
	}
	for _, tt := range tests {
		t.Run(tt.repr, func(t *testing.T) {
			in := "ServerArgs(v=" + tt.repr + ", w=1)"
			a := ParseServerArgs(in)
			if !a.Complete {
				t.Errorf("%s: not Complete", in)
			}
			if got, ok := a.Fields["v"]; !ok || !valueEqual(got, tt.want) {
				t.Errorf("%s: v = %#v, %v, want %#v", in, got, ok, tt.want)
			}
			if got := a.Fields["w"]; got != int64(1) || len(a.Order) != 2 {
				t.Errorf("%s: w = %#v, fields %v", in, got, a.Order)
			}
		})
	}
}

func TestFindServerArgs(t *testing.T) {
	const repr = "ServerArgs(tp_size=2, model_path='Qwen/Qwen3-8B')"
	tests := []struct {
		name, line string
		want       bool
	}{
		{"header", "[2026-11-29 10:15:02] server_args=" + repr, true},
		{"header with ms and rank", "[2026-11-29 10:15:02.123 TP0] server_args=" + repr, true},
		{"no header", "server_args=" + repr, true},
		{"ray prefix", "(SGLangEngine pid=4242, ip=10.0.0.2) [2026-11-29 10:15:02] server_args=" + repr, true},
		{"crlf", "[2026-11-29 10:15:02] server_args=" + repr + "\r\n", true},
		{"after a code line", "x = f(server_args=server_args) server_args=" + repr, true},
		{"traceback source", "    engine = Engine(server_args=server_args)", false},
		{"other key", "[2026-11-29 10:15:02] port_server_args=" + repr, false},
		{"space after key", "[2026-11-29 10:15:02] server_args= " + repr, false},
		{"other line", "[2026-11-29 10:15:13 TP0] Load weight begin. avail mem=78.52 GB", false},
		{"key at end", "[2026-11-29 10:15:02] server_args=", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := FindServerArgs([]byte(tt.line))
			if ok != tt.want {
				t.Fatalf("FindServerArgs(%q) = %q, %v", tt.line, got, ok)
			}
			if !ok {
				return
			}
			if got != repr {
				t.Errorf("FindServerArgs(%q) = %q, want %q", tt.line, got, repr)
			}
			a := ParseServerArgs(got)
			if n, _ := a.Int("tp_size"); !a.Complete || n != 2 {
				t.Errorf("parsed %#v", a)
			}
		})
	}
}

func TestServerArgsAccessors(t *testing.T) {
	a := ParseServerArgs(`ServerArgs(tp_size=2, mem_fraction_static=0.835, watchdog_timeout=300.0, ` +
		`model_path='Qwen/Qwen3-8B', enable_metrics=True, api_key=None, ` +
		`cuda_graph_config=CudaGraphConfig(decode=PhaseConfig(backend='full', max_bs=256, bs=[1, 2, 4])), ` +
		`kwargs={'enable_thinking': False, 'stop': ['a b', "c\n"]}, urls=['http://a:1', 'http://b:2'], ` +
		`backend=<AttentionBackend.FA3: 'fa3'>, level=<Level.HIGH: 3>, ratio=1e-05, big=inf, empty=[], ` +
		`path=PosixPath('/m'), odd='<not: an enum>')`)
	if !a.Complete {
		t.Fatal("not Complete")
	}
	ints := []struct {
		name string
		want int64
		ok   bool
	}{
		{"tp_size", 2, true}, {"watchdog_timeout", 300, true}, {"cuda_graph_config.decode.max_bs", 256, true},
		{"cuda_graph_config.decode.bs.2", 4, true}, {"mem_fraction_static", 0, false}, {"model_path", 0, false},
		{"api_key", 0, false}, {"enable_metrics", 0, false}, {"big", 0, false}, {"missing", 0, false},
	}
	for _, tt := range ints {
		if got, ok := a.Int(tt.name); got != tt.want || ok != tt.ok {
			t.Errorf("Int(%s) = %d, %v", tt.name, got, ok)
		}
	}
	if f, ok := a.Float("mem_fraction_static"); f != 0.835 || !ok {
		t.Errorf("Float(mem_fraction_static) = %v, %v", f, ok)
	}
	if f, ok := a.Float("tp_size"); f != 2 || !ok {
		t.Errorf("Float(tp_size) = %v, %v", f, ok)
	}
	if s, ok := a.String("model_path"); s != "Qwen/Qwen3-8B" || !ok {
		t.Errorf("String(model_path) = %q, %v", s, ok)
	}
	for _, name := range []string{"api_key", "tp_size", "missing", "cuda_graph_config"} {
		if s, ok := a.String(name); ok {
			t.Errorf("String(%s) = %q", name, s)
		}
	}
	if b, ok := a.Bool("enable_metrics"); !b || !ok {
		t.Errorf("Bool(enable_metrics) = %v, %v", b, ok)
	}
	if b, ok := a.Bool("kwargs.enable_thinking"); b || !ok {
		t.Errorf("Bool(kwargs.enable_thinking) = %v, %v", b, ok)
	}
	if _, ok := a.Bool("tp_size"); ok {
		t.Error("Bool(tp_size) answers")
	}
	lookups := []struct {
		name string
		want Value
		ok   bool
	}{
		{"api_key", nil, true},
		{"cuda_graph_config.decode.backend", "full", true},
		{"cuda_graph_config.decode.bs", []Value{int64(1), int64(2), int64(4)}, true},
		{"kwargs.stop.1", "c\n", true},
		{"path.0", "/m", true},
		{"cuda_graph_config.prefill", nil, false},
		{"cuda_graph_config.decode.bs.3", nil, false},
		{"cuda_graph_config.decode.bs.-1", nil, false},
		{"tp_size.x", nil, false},
		{"cuda_graph_config.", nil, false},
		{"", nil, false},
	}
	for _, tt := range lookups {
		if got, ok := a.Lookup(tt.name); ok != tt.ok || !valueEqual(got, tt.want) {
			t.Errorf("Lookup(%q) = %#v, %v", tt.name, got, ok)
		}
	}
	flags := map[string]string{
		"tp_size": "2", "mem_fraction_static": "0.835", "watchdog_timeout": "300.0", "model_path": "Qwen/Qwen3-8B",
		"enable_metrics": "True", "api_key": "None", "urls": "http://a:1 http://b:2", "backend": "fa3", "level": "3",
		"ratio": "1e-05", "big": "inf", "empty": "", "missing": "", "odd": "<not: an enum>",
		"kwargs":                          `{"enable_thinking": false, "stop": ["a b", "c\n"]}`,
		"cuda_graph_config.decode":        "PhaseConfig(backend='full', max_bs=256, bs=[1, 2, 4])",
		"cuda_graph_config.decode.bs":     "1 2 4",
		"cuda_graph_config.decode.max_bs": "256",
		"path":                            "PosixPath('/m')",
	}
	for name, want := range flags {
		if got := a.Flag(name); got != want {
			t.Errorf("Flag(%s) = %q, want %q", name, got, want)
		}
	}
	var none *ServerArgs
	if _, ok := none.Lookup("tp_size"); ok || none.Flag("tp_size") != "" {
		t.Error("nil ServerArgs answers")
	}
}

func TestServerArgsRepr(t *testing.T) {
	tests := []struct {
		v    Value
		want string
	}{
		{1.0, "1.0"}, {0.002, "0.002"}, {1e-05, "1e-05"}, {0.0001, "0.0001"}, {1e16, "1e+16"},
		{123456789012345.0, "123456789012345.0"}, {math.Copysign(0, -1), "-0.0"}, {math.Inf(-1), "-inf"},
		{math.NaN(), "nan"}, {int64(-3), "-3"}, {nil, "None"}, {true, "True"},
		{"it's", `"it's"`}, {`it's "x"`, `'it\'s "x"'`}, {"a\\b\n\x01", `'a\\b\n\x01'`},
		{[]Value{int64(1), "a"}, "[1, 'a']"}, {map[string]Value{"b": nil, "a": int64(1)}, "{'a': 1, 'b': None}"},
		{&Call{Name: "F", Args: map[string]Value{"0": "p", "k": 1.5}, Order: []string{"0", "k"}}, "F('p', k=1.5)"},
	}
	for _, tt := range tests {
		if got := Repr(tt.v); got != tt.want {
			t.Errorf("Repr(%#v) = %s, want %s", tt.v, got, tt.want)
		}
	}
	tricky, _ := buildRepr(trickyFields)
	a := ParseServerArgs(tricky)
	b := ParseServerArgs(a.Repr())
	if !b.Complete || !argsEqual(a, b) {
		t.Errorf("%s does not read back: %s", tricky, a.Repr())
	}
}

// Damage never makes the parser go back over the line: inputs built to
// make a naive recovery quadratic parse in linear time.
func TestParseServerArgsLinear(t *testing.T) {
	const n = 1 << 20
	r := func(s string) string { return strings.Repeat(s, n/len(s)) }
	inputs := map[string]string{
		"open brackets":  r("["),
		"nested lists":   "ServerArgs(a=" + r("["),
		"nested calls":   "ServerArgs(a=" + r("f(a="),
		"nested dicts":   "ServerArgs(a=" + r("{1: "),
		"damaged fields": "ServerArgs(" + r("a=1 x, "),
		"bad keywords":   "ServerArgs(a=@" + r(", a"),
		"quotes":         "ServerArgs(a=" + r("'"),
		"apostrophes":    "ServerArgs(a=@" + r("x'"),
		"angles":         "ServerArgs(a=" + r("<"),
		"digits":         "ServerArgs(a=" + r("9") + ")",
		"escapes":        "ServerArgs(a='" + r(`\x`) + "')",
		"bad lists":      "ServerArgs(" + r("a=[1, 2), "),
		"fields":         "ServerArgs(" + r("a=1, "),
		"closers":        "ServerArgs(a=@" + r("]}"),
	}
	for name, in := range inputs {
		start := time.Now()
		ParseServerArgs(in)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: %d bytes took %v", name, len(in), d)
		}
	}
	start := time.Now()
	if _, ok := FindServerArgs([]byte(r("server_args="))); ok {
		t.Error("FindServerArgs found a repr in keys only")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("FindServerArgs took %v", d)
	}
}

// FuzzParseServerArgs checks that the parser never panics, and that a
// complete parse renders to a repr that reads back to the same fields.
func FuzzParseServerArgs(f *testing.F) {
	// The config lines of the fixture logs, as sglang printed them.
	logs, err := filepath.Glob("../testdata/logs/*.log")
	if err != nil {
		f.Fatal(err)
	}
	n := 0
	for _, name := range logs {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if text, ok := FindServerArgs([]byte(line)); ok {
				f.Add(text)
				n++
			}
		}
	}
	if n < 5 {
		f.Fatalf("%d config lines in the fixture logs", n)
	}
	full, _ := sglangLine(f)
	f.Add(full)
	f.Add(full[:len(full)/2])
	tricky, _ := buildRepr(trickyFields)
	f.Add(tricky)
	for _, s := range []string{
		`ServerArgs(a=1, b=@weird, c=2)`, `ServerArgs(a=[1, 2), b=2)`, `ServerArgs(a='it's', b=1)`,
		`ServerArgs(x=Foo(a=1, b=?), y=2)`, `ServerArgs(a={None: 1, (1, 2): 'p'}, b=<E.A: 'a>b'>)`,
		`ServerArgs(a=b'\x00\xff', b='\U0001F600\u00e9\x41', c=r'\n', d=-1e-05, e=nan, f=set())`,
		`ServerArgs(a=frozenset({1}), b=device(type='cuda'), c=(1,), d=(1), e=torch.bfloat16)`,
		`server_args=ServerArgs(a=99999999999999999999, b=1e999, c=-0.0)`, `ServerArgs(`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := ParseServerArgs(s)
		if len(a.Order) != len(a.Fields) {
			t.Fatalf("%d names for %d fields", len(a.Order), len(a.Fields))
		}
		if !a.Complete {
			return
		}
		r := a.Repr()
		b := ParseServerArgs(r)
		if !b.Complete || !argsEqual(a, b) {
			t.Fatalf("%q renders as %q, which reads back as %#v", s, r, b.Fields)
		}
		if b.Repr() != r {
			t.Fatalf("%q renders as %q, then as %q", s, r, b.Repr())
		}
	})
}
