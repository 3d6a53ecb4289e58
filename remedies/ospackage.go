package remedies

import "strings"

// osPackage is the Debian and Ubuntu package that installs a shared
// library the dynamic loader could not find, from the library's file name
// in the message ("libnuma.so.1"). Worked from a table, not from arithmetic.
const osPackage = "os_package"

// capLibrary is the capture that names the missing library.
const capLibrary = "lib"

// osPackages maps a shared library, by its name up to ".so" and, where the
// package name carries it, its version, to the Debian/Ubuntu package that
// ships it. Only libraries that Python wheels of the sglang stack link
// against and leave to the system are listed: the CUDA libraries come with
// the driver, the toolkit or the nvidia-* wheels, not from these packages.
var osPackages = map[string]string{
	"libnuma":          "libnuma1",
	"libibverbs":       "libibverbs1 ibverbs-providers",
	"librdmacm":        "librdmacm1",
	"libmlx5":          "ibverbs-providers",
	"libmlx4":          "ibverbs-providers",
	"libefa":           "ibverbs-providers",
	"libGL":            "libgl1",
	"libEGL":           "libegl1",
	"libgomp":          "libgomp1",
	"libatomic":        "libatomic1",
	"libaio":           "libaio1 (libaio1t64 on Ubuntu 24.04)",
	"libglib-2.0":      "libglib2.0-0",
	"libgthread-2.0":   "libglib2.0-0",
	"libSM":            "libsm6",
	"libXext":          "libxext6",
	"libXrender":       "libxrender1",
	"libsndfile":       "libsndfile1",
	"libcurl":          "libcurl4",
	"libzmq":           "libzmq5",
	"libnl-3":          "libnl-3-200",
	"libnl-route-3":    "libnl-route-3-200",
	"libhwloc":         "libhwloc15",
	"libelf":           "libelf1",
	"libtinfo":         "libtinfo6",
	"libopenblas":      "libopenblas0",
	"libucs":           "libucx0",
	"libucp":           "libucx0",
	"libuct":           "libucx0",
	"libssl.so.3":      "libssl3",
	"libcrypto.so.3":   "libssl3",
	"libssl.so.1.1":    "libssl1.1",
	"libcrypto.so.1.1": "libssl1.1",
	"libjemalloc":      "libjemalloc2",
	"libtcmalloc":      "libgoogle-perftools4",
	"libpci":           "libpci3",
	"libdrm":           "libdrm2",
	"libdrm_amdgpu":    "libdrm-amdgpu1",
	"libgflags":        "libgflags2.2",
	"libglog":          "libglog0v6 (libglog1 on Ubuntu 24.04)",
	"libjsoncpp":       "libjsoncpp25",
}

// osPackageOf answers the package of the library a finding names, or false
// when the message names none or one the table does not know.
func (w *workedValues) osPackageOf() (string, string, bool) {
	v, ok := w.Values.Lookup(capLibrary)
	lib, _ := v.(string)
	if !ok || lib == "" {
		return "", "", false
	}
	if p, ok := osPackages[lib]; ok {
		return p, "", true
	}
	stem, _, _ := strings.Cut(lib, ".so")
	if p, ok := osPackages[stem]; ok {
		return p, "", true
	}
	return "", "", false
}
