/* Where each member of a redist archive, a .deb or a wheel lands in the
 * sysroot: the layout rules, one member at a time. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysroot/plan.h"
#include "sysroot/sysroot_layout.h"
#include "tap.h"

static struct plan p;
static struct gpudb db;

static void expect(enum plan_format fmt, enum plan_side side, unsigned parts, const char *member,
		   const char *want)
{
	struct plan_archive a = { 0 };
	char *got;

	a.component = "comp";
	a.format = fmt;
	a.side = side;
	a.parts = parts | PART_LICENSE;
	got = sysroot_member_destination(&p, &a, member);
	is_str(got, want, "%s -> %s", member, want ? want : "(skipped)");
	free(got);
}

int main(void)
{
	const unsigned tools = PART_TOOLS, target = PART_HEADERS | PART_LIBS;

	p.target_dir = "sbsa-linux";
	/* redist: the top dir goes, host tools stay, target parts move */
	expect(PLAN_FMT_REDIST, PLAN_HOST, tools, "cuda_nvcc-linux-x86_64-12.6.85-archive", NULL);
	expect(PLAN_FMT_REDIST, PLAN_HOST, tools, "cuda_nvcc-linux-x86_64-12.6.85-archive/bin/nvcc",
	       "bin/nvcc");
	expect(PLAN_FMT_REDIST, PLAN_HOST, tools,
	       "cuda_nvcc-linux-x86_64-12.6.85-archive/nvvm/bin/cicc", "nvvm/bin/cicc");
	expect(PLAN_FMT_REDIST, PLAN_HOST, tools,
	       "cuda_nvcc-linux-x86_64-12.6.85-archive/bin/nvcc.profile", NULL);
	expect(PLAN_FMT_REDIST, PLAN_HOST, tools,
	       "cuda_nvcc-linux-x86_64-12.6.85-archive/include/fatbinary_section.h", NULL);
	expect(PLAN_FMT_REDIST, PLAN_HOST, tools | PART_HEADERS,
	       "cuda_nvcc-linux-x86_64-12.6.85-archive/include/fatbinary_section.h",
	       "targets/sbsa-linux/include/fatbinary_section.h");
	expect(PLAN_FMT_REDIST, PLAN_HOST, tools,
	       "cuda_nvcc-linux-x86_64-12.6.85-archive/lib/libnvptxcompiler_static.a", NULL);
	expect(PLAN_FMT_REDIST, PLAN_HOST, tools, "cuda_nvcc-linux-x86_64-12.6.85-archive/LICENSE",
	       "licenses/comp-host/LICENSE");
	expect(PLAN_FMT_REDIST, PLAN_TARGET, target,
	       "cuda_cudart-linux-sbsa-12.6.77-archive/lib/libcudart.so.12",
	       "targets/sbsa-linux/lib/libcudart.so.12");
	expect(PLAN_FMT_REDIST, PLAN_TARGET, target,
	       "libcublas-linux-sbsa-12.6.4.1-archive/lib64/libcublas.so.12",
	       "targets/sbsa-linux/lib/libcublas.so.12");
	expect(PLAN_FMT_REDIST, PLAN_TARGET, target, "libcublas-linux-sbsa-12.6.4.1-archive/lib64",
	       "targets/sbsa-linux/lib");
	expect(PLAN_FMT_REDIST, PLAN_TARGET, target,
	       "cuda_compat_orin-linux-sbsa-13.2.0-archive/compat_orin/libcuda.so.1",
	       "targets/sbsa-linux/compat_orin/libcuda.so.1");
	expect(PLAN_FMT_REDIST, PLAN_TARGET, target, "cuda_cudart-linux-sbsa-12.6.77-archive/LICENSE",
	       "licenses/comp/LICENSE");
	expect(PLAN_FMT_REDIST, PLAN_TARGET, PART_HEADERS,
	       "cuda_nvcc-linux-sbsa-12.6.85-archive/bin/nvcc", NULL);
	expect(PLAN_FMT_REDIST, PLAN_TARGET, PART_HEADERS,
	       "cuda_nvcc-linux-sbsa-12.6.85-archive/include/crt/host_config.h",
	       "targets/sbsa-linux/include/crt/host_config.h");
	/* a target archive's own bin is kept apart, never on nvcc's PATH */
	expect(PLAN_FMT_REDIST, PLAN_TARGET, target, "cuda_x-linux-sbsa-1-archive/bin/tool",
	       "targets/sbsa-linux/bin/tool");

	/* Debian's layout */
	expect(PLAN_FMT_DEB, PLAN_HOST, tools, "usr/lib/nvidia-cuda-toolkit/bin/nvcc", "bin/nvcc");
	expect(PLAN_FMT_DEB, PLAN_HOST, tools, "usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile", NULL);
	expect(PLAN_FMT_DEB, PLAN_HOST, tools, "usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc",
	       "nvvm/libdevice/libdevice.10.bc");
	expect(PLAN_FMT_DEB, PLAN_HOST, tools, "usr/bin/ptxas", "bin/ptxas");
	/* Debian's libnvvm4: where nvlink loads it for -dlto's device link */
	expect(PLAN_FMT_DEB, PLAN_HOST, tools, "usr/lib/x86_64-linux-gnu/libnvvm.so.4.0.0",
	       "nvvm/lib64/libnvvm.so.4.0.0");
	expect(PLAN_FMT_DEB, PLAN_HOST, tools, "usr/lib/x86_64-linux-gnu/libnvvm.so.4",
	       "nvvm/lib64/libnvvm.so.4");
	expect(PLAN_FMT_DEB, PLAN_HOST, tools, "usr/bin/nvcc", NULL);
	expect(PLAN_FMT_DEB, PLAN_HOST, tools, "usr/share/doc/nvidia-cuda-toolkit/copyright",
	       "licenses/comp-host/copyright");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/share/doc/libcudart11.0/copyright",
	       "licenses/comp/copyright");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/share/doc/libcudart11.0/changelog.Debian.gz",
	       NULL);
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/share/doc/copyright", NULL);
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/share/doc/libcudart11.0/copyright/x", NULL);
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/include/cuda_runtime.h",
	       "targets/sbsa-linux/include/cuda_runtime.h");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/lib/aarch64-linux-gnu/stubs/libcuda.so",
	       "targets/sbsa-linux/lib/stubs/libcuda.so");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/lib/python3/dist-packages/x.py", NULL);
	/* Debian 12.4's glibc header for the build machine's own include path */
	expect(PLAN_FMT_DEB, PLAN_TARGET, target,
	       "usr/lib/nvidia-cuda-toolkit/include/aarch64-linux-gnu/bits/math-vector.h", NULL);
	/* ...and its compute-sanitizer, a host tool no cross toolkit takes */
	expect(PLAN_FMT_DEB, PLAN_HOST, tools,
	       "usr/lib/nvidia-cuda-toolkit/compute-sanitizer/compute-sanitizer", NULL);
	/* NVIDIA's .debs */
	expect(PLAN_FMT_DEB, PLAN_TARGET, target,
	       "usr/local/cuda-12.6/targets/sbsa-linux/lib/libcudart.so.12",
	       "targets/sbsa-linux/lib/libcudart.so.12");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target,
	       "usr/local/cuda-12.6/targets/aarch64-linux/include/cuda.h",
	       "targets/sbsa-linux/include/cuda.h");
	expect(PLAN_FMT_DEB, PLAN_HOST, tools, "usr/local/cuda-12.6/bin/ptxas", "bin/ptxas");
	expect(PLAN_FMT_DEB, PLAN_HOST, tools, "usr/local/cuda-12.6/nvvm/bin/cicc", "nvvm/bin/cicc");
	/* NVIDIA's Jetson products: TensorRT's and cuDNN's multiarch headers,
	 * VPI's own prefix, L4T's multimedia libraries and its API's headers */
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/include/aarch64-linux-gnu/NvInfer.h",
	       "targets/sbsa-linux/include/NvInfer.h");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "opt/nvidia/vpi3/include/vpi/Image.h",
	       "targets/sbsa-linux/include/vpi/Image.h");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target,
	       "opt/nvidia/vpi3/lib/aarch64-linux-gnu/libnvvpi.so.3.2.4",
	       "targets/sbsa-linux/lib/libnvvpi.so.3.2.4");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target,
	       "opt/nvidia/vpi3/lib/aarch64-linux-gnu/priv/libcupva_host.so.2.5",
	       "targets/sbsa-linux/lib/priv/libcupva_host.so.2.5");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target,
	       "opt/nvidia/vpi3/lib/aarch64-linux-gnu/cmake/vpi3/vpi3-config.cmake",
	       "targets/sbsa-linux/lib/cmake/vpi3/vpi3-config.cmake");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "opt/nvidia/vpi3/lib64", NULL);
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "opt/nvidia/vpi3/etc/ld.so.conf.d/vpi3.conf", NULL);
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "opt/nvidia/vpi3/doc/VPI_EULA.txt",
	       "licenses/comp/VPI_EULA.txt");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "opt/nvidia/vpi3/doc/LICENSE.OpenCV",
	       "licenses/comp/LICENSE.OpenCV");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "opt/nvidia/vpi3/doc/html/index.html", NULL);
	expect(PLAN_FMT_DEB, PLAN_TARGET, target, "opt/nvidia/vpi3/doc/x/LICENSE", NULL);
	expect(PLAN_FMT_DEB, PLAN_TARGET, target,
	       "usr/lib/aarch64-linux-gnu/nvidia/libnvbufsurface.so.1.0.0",
	       "targets/sbsa-linux/lib/nvidia/libnvbufsurface.so.1.0.0");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target,
	       "usr/src/jetson_multimedia_api/include/nvbufsurface.h",
	       "targets/sbsa-linux/include/nvbufsurface.h");
	expect(PLAN_FMT_DEB, PLAN_TARGET, target,
	       "usr/src/jetson_multimedia_api/samples/00_video_decode/main.cpp", NULL);

	/* wheels */
	expect(PLAN_FMT_WHEEL, PLAN_TARGET, target, "nvidia/cuda_runtime/lib/libcudart.so.12",
	       "targets/sbsa-linux/lib/libcudart.so.12");
	expect(PLAN_FMT_WHEEL, PLAN_TARGET, target, "nvidia/cu13/include/cuda_runtime.h",
	       "targets/sbsa-linux/include/cuda_runtime.h");
	expect(PLAN_FMT_WHEEL, PLAN_HOST, tools, "nvidia/cuda_nvcc/bin/ptxas", "bin/ptxas");
	expect(PLAN_FMT_WHEEL, PLAN_HOST, tools, "nvidia/cuda_nvcc/nvvm/bin/cicc", "nvvm/bin/cicc");
	expect(PLAN_FMT_WHEEL, PLAN_TARGET, target, "nvidia/__init__.py", NULL);
	expect(PLAN_FMT_WHEEL, PLAN_TARGET, target, "nvidia/cuda_runtime/__init__.py", NULL);
	expect(PLAN_FMT_WHEEL, PLAN_TARGET, target, "nvidia_cuda_runtime-12.6.0.dist-info/WHEEL",
	       NULL);

	/* The library filter: Debian's nvidia-cuda-dev holds every math
	 * library; only the planned components' files are taken. */
	{
		struct strvec req = STRVEC_INIT;
		struct cuda_version v = { 11, 8, -1 };
		struct xcc_error err = { 0 };

		if (gpudb_load(&db, &err)) {
			printf("Bail out! %s\n", err.msg);
			return 1;
		}
		ok(plan_set_library_filter(&p, &db, v, &req, &err) == 0, "library filter: defaults");
		expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/lib/aarch64-linux-gnu/libcudart.so",
		       "targets/sbsa-linux/lib/libcudart.so");
		expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/lib/aarch64-linux-gnu/libculibos.a",
		       "targets/sbsa-linux/lib/libculibos.a");
		expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/lib/aarch64-linux-gnu/stubs/libcuda.so",
		       "targets/sbsa-linux/lib/stubs/libcuda.so");
		expect(PLAN_FMT_DEB, PLAN_TARGET, target,
		       "usr/lib/aarch64-linux-gnu/libcublas_static.a", NULL);
		expect(PLAN_FMT_DEB, PLAN_TARGET, target,
		       "usr/lib/aarch64-linux-gnu/stubs/libcublas.so", NULL);
		expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/lib/aarch64-linux-gnu/stubs", NULL);
		expect(PLAN_FMT_DEB, PLAN_TARGET, target,
		       "usr/lib/aarch64-linux-gnu/cuda-gdb/libcudacore.a", NULL);
		expect(PLAN_FMT_DEB, PLAN_TARGET, target, "usr/include/cublas_v2.h",
		       "targets/sbsa-linux/include/cublas_v2.h");
		expect(PLAN_FMT_WHEEL, PLAN_TARGET, target, "nvidia/cublas/lib/libcublas.so.12", NULL);
		/* a redist archive is one component: never filtered */
		expect(PLAN_FMT_REDIST, PLAN_TARGET, target,
		       "libcublas-linux-sbsa-12.6.4.1-archive/lib/libcublas.so.12",
		       "targets/sbsa-linux/lib/libcublas.so.12");

		strvec_push(&req, "libcublas");
		ok(plan_set_library_filter(&p, &db, v, &req, &err) == 0, "library filter: + libcublas");
		expect(PLAN_FMT_DEB, PLAN_TARGET, target,
		       "usr/lib/aarch64-linux-gnu/libcublasLt_static.a",
		       "targets/sbsa-linux/lib/libcublasLt_static.a");
		expect(PLAN_FMT_DEB, PLAN_TARGET, target,
		       "usr/lib/aarch64-linux-gnu/stubs/libcublas.so",
		       "targets/sbsa-linux/lib/stubs/libcublas.so");
		expect(PLAN_FMT_WHEEL, PLAN_TARGET, target, "nvidia/cublas/lib/libcublas.so.12",
		       "targets/sbsa-linux/lib/libcublas.so.12");
		expect(PLAN_FMT_DEB, PLAN_TARGET, target,
		       "usr/lib/aarch64-linux-gnu/libcufft_static.a", NULL);

		/* A single-component package given with --from brings its own
		 * component: its name says which. */
		{
			static const char *const names[] = { "nvidia_cublas_cu12", "libcublas11",
							     "libcublas-12-6", "libcublas-dev-12-6" };
			struct plan_archive a = { .format = PLAN_FMT_WHEEL };
			struct strvec none = STRVEC_INIT;

			for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
				struct plan q = p;

				a.component = (char *)names[i];
				a.format = i ? PLAN_FMT_DEB : PLAN_FMT_WHEEL;
				q.archives = &a;
				q.n_archives = 1;
				q.lib_patterns = (struct strvec)STRVEC_INIT;
				ok(plan_set_library_filter(&q, &db, v, &none, &err) == 0 &&
				   sysroot_layout_keeps_library(&q, "libcublas.so.12") &&
				   !sysroot_layout_keeps_library(&q, "libcufft.so.11"),
				   "package %s brings libcublas, not libcufft", names[i]);
				strvec_free(&q.lib_patterns);
			}
			a.component = "nvidia-cuda-dev";
			{
				struct plan q = p;

				q.archives = &a;
				q.n_archives = 1;
				q.lib_patterns = (struct strvec)STRVEC_INIT;
				ok(plan_set_library_filter(&q, &db, v, &none, &err) == 0 &&
				   !sysroot_layout_keeps_library(&q, "libcublas.so.11") &&
				   sysroot_layout_keeps_library(&q, "libcudart.so.11.0"),
				   "nvidia-cuda-dev stands for no single component");
				strvec_free(&q.lib_patterns);
			}
		}

		/* NVIDIA's products beyond CUDA bring what their libraries need */
		{
			struct strvec jp = STRVEC_INIT;
			struct plan q = p;
			struct cuda_version v126 = { 12, 6, -1 };
			int noted = 0;

			q.lib_patterns = (struct strvec)STRVEC_INIT;
			q.notes = (struct strvec)STRVEC_INIT;
			strvec_push(&jp, "cudnn");
			strvec_push(&jp, "vpi");
			strvec_push(&jp, "l4t_multimedia");
			ok(plan_set_library_filter(&q, &db, v126, &jp, &err) == 0,
			   "library filter: cudnn, vpi, l4t_multimedia");
			ok(sysroot_layout_keeps_library(&q, "libcudnn.so.9") &&
			   sysroot_layout_keeps_library(&q, "libcublasLt.so.12") &&
			   sysroot_layout_keeps_library(&q, "libnvrtc.so.12"),
			   "cudnn brings libcublas and cuda_nvrtc");
			ok(sysroot_layout_keeps_library(&q, "libnvvpi.so.3") &&
			   sysroot_layout_keeps_library(&q, "priv/libcupva_host.so.2") &&
			   sysroot_layout_keeps_library(&q, "libcufft.so.11") &&
			   sysroot_layout_keeps_library(&q, "libnppc.so.12"),
			   "vpi: its library, priv/, and the libcufft and libnpp it needs");
			ok(sysroot_layout_keeps_library(&q, "nvidia/libnvbufsurface.so.1.0.0") &&
			   !sysroot_layout_keeps_library(&q, "nvidia/libcuda.so.1.1") &&
			   !sysroot_layout_keeps_library(&q, "libnvinfer.so.10"),
			   "l4t_multimedia: its lib/nvidia/ libraries, not the driver's");
			for (size_t i = 0; i < q.notes.n; i++)
				noted += strstr(q.notes.v[i], "cudnn brings cuda_nvrtc") &&
					 strstr(q.notes.v[i], "unverified");
			ok(noted == 1 && q.notes.n == 1, "one note: the unverified need (%zu notes)",
			   q.notes.n);
			strvec_free(&jp);
			strvec_free(&q.lib_patterns);
			strvec_free(&q.notes);
		}

		strvec_push(&req, "libfoo");
		ok(plan_set_library_filter(&p, &db, v, &req, &err) == -1 && err.status == XCC_EUSAGE &&
		   strstr(err.msg, "libfoo") && strstr(err.msg, "libcufft"),
		   "an unknown component is refused, naming the known ones: %s", err.msg);
		strvec_free(&req);
		strvec_free(&p.lib_patterns);
		gpudb_free(&db);
	}
	return done_testing();
}
