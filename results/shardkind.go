package results

// KindShard is the kind of an output folder holding one shard of a sweep or a map: the
// summaries of the units (runs) the shard owns, to be merged with the other shards'
// (experiment.Merge). The kind and its file names stay here, with the manifest discipline that
// must recognise a shard's folder (CheckOutDir, ClaimDir); what a shard holds and how shards
// merge is experiment's.
const KindShard = "shard"

// ShardFile names a shard folder's description (experiment.ShardInfo). It is written when the
// shard starts, so an unfinished shard can still be named; the manifest, written when every
// unit the shard owns has finished, lists it with every unit file.
const ShardFile = "shard.json"

// MergeHint returns, for a folder of kind, what to do instead of reading it as a result: for a
// shard, merge it with its siblings first; "" for any other kind.
func MergeHint(kind string) string {
	if kind == KindShard {
		return "; merge it with the other shards first (simulate merge)"
	}
	return ""
}

// UnitsDir is the folder, inside a sweep's output folder, where the sweep keeps the summary of
// every replication that finished until the whole sweep has: re-running the same sweep into the
// same folder (after an interrupt, a crash or a kill) skips them. A result of another kind
// written into the folder removes it.
const UnitsDir = "units"

// UnitsKeyFile holds the key of the sweep whose units the folder keeps (experiment.UnitsKey).
// Both names stay here because the manifest discipline must recognise a units folder as ours
// (CheckOutDir, ClaimDir); what the units hold is experiment's (experiment.Units).
const UnitsKeyFile = "KEY"
