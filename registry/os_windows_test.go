package registry

// syncFS does nothing on Windows, which has no sync(2) for all file
// systems; the benchmarks' phases may then share write-back costs.
func syncFS() {}
