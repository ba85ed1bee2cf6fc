package results

// FormatSeconds writes a duration of ns nanoseconds in seconds as every output file does:
// exactly, with at most nine decimals and no trailing zeros ("120", "1.5", "0.000001").
func FormatSeconds(ns int64) string { return formatSeconds(ns) }
