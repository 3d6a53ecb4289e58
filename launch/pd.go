package launch

import "github.com/tailfix/tailfix/pyrepr"

// Lookup answers a server setting by its ServerArgs name (a flag's dest),
// nil for a setting left at None. A parsed Command answers it, and so
// does the configuration sglang logs when it starts (its server_args
// line), so that one setting can be compared across both.
type Lookup interface {
	Lookup(name string) (any, bool)
}

// PDSetting is a setting that the prefill and decode servers of a
// PD-disaggregated deployment must agree on.
type PDSetting struct {
	// Field names the setting: a ServerArgs field, or for a setting
	// sglang works out from several flags, the name record templates use
	// for it ("attention_tp_size").
	Field string
	// Flag is the flag the setting is given with, for messages.
	Flag string
	// Record is the pattern id of the error a disagreement leads to.
	Record string
	// Default is the value of a server that leaves the setting unset.
	Default any
	// Family limits the setting to one model family (see Model.In); ""
	// for every model.
	Family string
	// Value is a server's value of the setting, normalised so that a
	// command and the configuration its server logs give equal values:
	// integers as int64, the default for an unset setting, one spelling
	// for spellings sglang treats as one. ok is false when the server's
	// settings do not tell it.
	Value func(Lookup) (v any, ok bool)
}

// PDAgreements are the settings prefill and decode servers must agree on,
// each with the error sglang raises when they do not.
var PDAgreements = []PDSetting{
	{
		// The decode side compares the prefill's page_size with its own
		// and raises "Page size mismatch" (disaggregation/common/conn.py,
		// try_ensure_parallel_info). The flag defaults to None, which
		// most attention backends resolve to 1.
		Field: "page_size", Flag: "--page-size", Record: "sglang/pd-page-size-mismatch", Default: int64(1),
		Value: func(l Lookup) (any, bool) { return intSetting(l, "page_size", 1) },
	},
	{
		// Compared as strings beside page_size ("KV cache dtype mismatch").
		Field: "kv_cache_dtype", Flag: "--kv-cache-dtype", Record: "sglang/pd-kv-cache-dtype-mismatch", Default: "auto",
		Value: func(l Lookup) (any, bool) { return stringSetting(l, "kv_cache_dtype", "auto") },
	},
	{
		// mooncake_tcp is mooncake with its TCP transport forced:
		// sglang's PD argument hook rewrites it to "mooncake" before any
		// backend check, so the two sides run one backend and the logged
		// configuration says "mooncake" for either.
		Field: "disaggregation_transfer_backend", Flag: "--disaggregation-transfer-backend",
		Record: "sglang/pd-transfer-backend-mismatch", Default: "mooncake",
		Value: func(l Lookup) (any, bool) {
			v, ok := stringSetting(l, "disaggregation_transfer_backend", "mooncake")
			if v == "mooncake_tcp" {
				v = "mooncake"
			}
			return v, ok
		},
	},
	{
		// The prefill side sends MiniMax's sparse index only to a decode
		// server of its own attention-TP size, else raises "PD disagg:
		// heterogeneous TP not supported for MiniMax sparse index yet."
		// (mooncake, nixl and mori alike).
		Field: "attention_tp_size", Flag: "--tp-size", Record: "sglang/pd-minimax-sparse-hetero-tp", Family: FamilyMiniMaxSparse,
		Value: func(l Lookup) (any, bool) {
			n, ok := AttnTP(l)
			return n, ok
		},
	},
}

// PDAgreement is the row of PDAgreements for a field, or nil.
func PDAgreement(field string) *PDSetting {
	for i := range PDAgreements {
		if PDAgreements[i].Field == field {
			return &PDAgreements[i]
		}
	}
	return nil
}

// Applies reports whether the setting matters for a pair of servers, one
// of whose models is given: always, or when a model is of its family.
func (s *PDSetting) Applies(models ...*Model) bool {
	if s.Family == "" {
		return true
	}
	for _, m := range models {
		if m != nil && m.In(s.Family) {
			return true
		}
	}
	return false
}

// Disagree compares the setting of a prefill and a decode server. bad is
// true when both values are known and differ.
func (s *PDSetting) Disagree(prefill, decode Lookup) (pv, dv any, bad bool) {
	pv, pok := s.Value(prefill)
	dv, dok := s.Value(decode)
	return pv, dv, pok && dok && pv != dv
}

// AttnTP is a server's attention tensor-parallel size, the way sglang
// works it out (layers/dp_attention.py): tp_size // attn_dp_size //
// attn_cp_size, where attn_dp_size is dp_size with DP attention and 1
// without. ok is false when the settings give no tp_size.
func AttnTP(l Lookup) (int64, bool) {
	v, given := l.Lookup("tp_size")
	if !given || v == nil {
		return 0, false
	}
	tp, ok := pyrepr.IntValue(v)
	if !ok {
		return 0, false
	}
	if on, _ := l.Lookup("enable_dp_attention"); on == true {
		if dp, _ := intSetting(l, "dp_size", 1); dp > 0 {
			tp /= dp
		}
	}
	if cp, _ := intSetting(l, "attn_cp_size", 1); cp > 0 {
		tp /= cp
	}
	return tp, true
}

// intSetting is an integer setting, def when it is unset or None; ok is
// false when it is not an integer.
func intSetting(l Lookup, name string, def int64) (int64, bool) {
	v, ok := l.Lookup(name)
	if !ok || v == nil {
		return def, true
	}
	return pyrepr.IntValue(v)
}

// stringSetting is a string setting, def when it is unset or None; ok is
// false when it is not a string.
func stringSetting(l Lookup, name, def string) (string, bool) {
	v, ok := l.Lookup(name)
	if !ok || v == nil {
		return def, true
	}
	s, ok := v.(string)
	return s, ok
}
