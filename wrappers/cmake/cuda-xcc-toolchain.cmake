# CMake toolchain file for cross-compiling CUDA code with a cuda-xcc sysroot.
#
#   cmake -S . -B build \
#         -DCMAKE_TOOLCHAIN_FILE=/path/to/cuda-xcc-toolchain.cmake \
#         -DCUDA_XCC_SYSROOT=/path/to/sysroot \
#         -DCUDA_XCC_ARCH=sm_87              # optional; else the sysroot's capabilities
#
# Optional: CUDA_XCC_TARGET_FS (the device's root filesystem: glibc, libstdc++; C, C++
# and CUDA then compile and link against it, as the cuda-xcc driver does),
# CUDA_XCC_STRICT (ON: a need above the device's runtime floor fails the link),
# CUDA_XCC_EXECUTABLE (the cuda-xcc binary; else found on PATH),
# CUDA_XCC_DEVICE (ssh://user@host[:port]: ctest and try_run run the programs there
# instead of under qemu here), CUDA_XCC_SSH_CONFIG (an ssh configuration file for it) and
# CUDA_XCC_HOST_COMPILER_LAUNCHER (e.g. distcc: nvcc's host compiler runs through it; also
# read from the environment), CUDA_XCC_PREFIX_MAP_BUILD_TREE (ON: the checkout and the build
# tree are mapped to fixed names in every compile, as the sysroot always is, so that objects
# do not depend on where they lie). A CMAKE_CUDA_HOST_COMPILER of the user's is kept where it is
# the sysroot's cross g++ under another name (same -dumpmachine and GCC release).
#
# Every executable and shared library of C, C++ and CUDA targets is checked after its link
# against the device's runtime floor (`cuda-xcc check-link` as CMAKE_<LANG>_LINKER_LAUNCHER,
# CMake 3.21 or newer): GLIBC_ against the root's libc, GLIBCXX_/CXXABI_/GCC_ against its
# libstdc++ and libgcc_s, and for Jetson GPUs the JetPack release's floor.
#
# Programs built for the target run through `cuda-xcc run` (CMAKE_CROSSCOMPILING_EMULATOR),
# so `ctest` works on a cross-built tree: under qemu with the sysroot's libraries, or on
# the device.
#
# nvcc itself is the CUDA compiler (CMake parses its -v output and reads the
# INCLUDES/LIBRARIES of the sysroot's nvcc.profile); cuda-xcc validates the
# architectures at configure time, so a bad GPU/CUDA/target combination fails
# here with cuda-xcc's message instead of deep inside nvcc.
# Not cmake_minimum_required(), which would set the project's policies
# from a toolchain file: the version check alone (cuda-xcc doctor reads this
# line), and this file's own policies pushed and popped. 3.21: the linker
# launcher that runs the floor check after each link.
# A fatal error stops the configure inside project(), and CMake then goes on
# to report what the rest of this file would have set as the project's own
# fault: "unable to find a build program corresponding to "Ninja"" and
# "CMAKE_CXX_COMPILER not set, after EnableLanguage". Before a fatal error
# this finds the build program (as CMake's own CMake<Generator>FindMake
# module would, into the same cache entry) and names placeholder compilers
# (plain variables, never cached) where none is set yet, so that cuda-xcc's
# error is the only one. A macro, for the compilers must be set in the
# scope CMake reads them from.
macro(_xcc_before_fatal)
	if(NOT CMAKE_MAKE_PROGRAM)
		if(CMAKE_GENERATOR MATCHES "Ninja")
			find_program(CMAKE_MAKE_PROGRAM NAMES ninja-build ninja samu NAMES_PER_DIR
				NO_CMAKE_FIND_ROOT_PATH)
		elseif(CMAKE_GENERATOR MATCHES "Makefiles")
			find_program(CMAKE_MAKE_PROGRAM NAMES gmake make smake NAMES_PER_DIR
				NO_CMAKE_FIND_ROOT_PATH)
		endif()
	endif()
	foreach(_xcc_lang C CXX CUDA ASM Fortran HIP OBJC OBJCXX)
		if(NOT CMAKE_${_xcc_lang}_COMPILER)
			set(CMAKE_${_xcc_lang}_COMPILER "cuda-xcc-configure-stopped")
		endif()
	endforeach()
endmacro()

if(CMAKE_VERSION VERSION_LESS 3.21)
	_xcc_before_fatal()
	message(FATAL_ERROR "cuda-xcc: CMake ${CMAKE_VERSION} is too old for the cuda-xcc "
		"toolchain file, which needs 3.21 or later (CMAKE_<LANG>_LINKER_LAUNCHER runs "
		"the device's floor check after each link)")
endif()
cmake_policy(PUSH)
cmake_policy(VERSION 3.21)

# Toolchain files are read again by try_compile projects: pass the settings on.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES
	CUDA_XCC_SYSROOT CUDA_XCC_ARCH CUDA_XCC_TARGET_FS CUDA_XCC_EXECUTABLE
	CUDA_XCC_DEVICE CUDA_XCC_SSH_CONFIG CUDA_XCC_STRICT CUDA_XCC_HOST_COMPILER_LAUNCHER
	CUDA_XCC_PREFIX_MAP_BUILD_TREE)

if(NOT CUDA_XCC_SYSROOT AND DEFINED ENV{CUDA_XCC_SYSROOT})
	set(CUDA_XCC_SYSROOT "$ENV{CUDA_XCC_SYSROOT}")
endif()
if(NOT CUDA_XCC_SYSROOT)
	_xcc_before_fatal()
	message(FATAL_ERROR "cuda-xcc: set CUDA_XCC_SYSROOT to a sysroot made by "
		"'cuda-xcc sysroot create' (-DCUDA_XCC_SYSROOT=DIR or the environment)")
endif()
if(NOT CUDA_XCC_EXECUTABLE)
	find_program(CUDA_XCC_EXECUTABLE cuda-xcc)
endif()
if(NOT CUDA_XCC_EXECUTABLE)
	_xcc_before_fatal()
	message(FATAL_ERROR "cuda-xcc: no cuda-xcc on PATH, which this file asks what the sysroot "
		"is: install it, or name it with -DCUDA_XCC_EXECUTABLE=PATH")
endif()

# What the sysroot is, and whether this configure can build with it, as
# cuda-xcc's own rules say ('cuda-xcc toolchain query', the one owner of
# them): its opener of a sysroot (the same answers and refusals as the
# driver and 'toolchain meson'); the values CMake's lists, its cache and the
# build's command lines cannot carry (the sysroot, the device root, the
# cuda-xcc binary), refused rather than mangled; another CUDA whose headers
# every compile would read (CPATH and the like), refused, and another named
# where a project looks for one (CUDA_HOME, a -DCMAKE_CUDA_COMPILER or
# -DCUDAToolkit_ROOT of the user's), said. The answer is CMake code whose
# values cuda-xcc quoted: set(CUDA_XCC_QUERY_<FIELD> ...) and those notes.
# Every argument is quoted, so that a value with a ';' reaches cuda-xcc whole
# and is refused as what it is. The user's cache entries are said once per
# configure, and read before this file replaces them.
get_property(_xcc_said GLOBAL PROPERTY _CUDA_XCC_FOREIGN_CACHE_SAID)
set(_xcc_user_CMAKE_CUDA_COMPILER "")
set(_xcc_user_CUDAToolkit_ROOT "")
if(NOT _xcc_said)
	set(_xcc_user_CMAKE_CUDA_COMPILER "$CACHE{CMAKE_CUDA_COMPILER}")
	set(_xcc_user_CUDAToolkit_ROOT "$CACHE{CUDAToolkit_ROOT}")
endif()
set_property(GLOBAL PROPERTY _CUDA_XCC_FOREIGN_CACHE_SAID TRUE)
execute_process(
	COMMAND "${CUDA_XCC_EXECUTABLE}" toolchain query --cmake --sysroot "${CUDA_XCC_SYSROOT}"
		--target-fs "${CUDA_XCC_TARGET_FS}" --cuda-xcc "${CUDA_XCC_EXECUTABLE}"
		--check "CMAKE_CUDA_COMPILER=${_xcc_user_CMAKE_CUDA_COMPILER}"
		--check "CUDAToolkit_ROOT=${_xcc_user_CUDAToolkit_ROOT}"
	OUTPUT_VARIABLE _xcc_query ERROR_VARIABLE _xcc_err RESULT_VARIABLE _xcc_rc)
if(NOT _xcc_rc EQUAL 0)
	_xcc_before_fatal()
	message(FATAL_ERROR "${_xcc_err}")
endif()
cmake_language(EVAL CODE "${_xcc_query}")
# The device root the sysroot was made for, unless one is named here: the
# driver and the Meson cross file build against it too.
if(NOT CUDA_XCC_TARGET_FS AND CUDA_XCC_QUERY_TARGET_FS)
	set(CUDA_XCC_TARGET_FS "${CUDA_XCC_QUERY_TARGET_FS}")
endif()
# ccache knows nvcc only by its size and mtime (not cicc, ptxas or the
# headers and libraries beside it), so a sysroot swapped for another CUDA
# under the same path would give stale hits, and two runners whose sysroots
# were unpacked at different times would share nothing; sccache knows it by
# nvcc's bytes alone. Where ccache or sccache is the CUDA compiler launcher,
# the sysroot's fingerprint (a hash of everything that decides its tree)
# enters the key: ccache's compiler_check, sccache's cache buster.
# The variable reaches ccache or sccache through env(1), not `cmake -E env`: a CMake
# start is some 15 ms of CPU (80 ms of wall time on a loaded machine), paid
# by every CUDA compile, hits included, where env takes 1.5 ms.
find_program(CUDA_XCC_ENV_PROGRAM env DOC "env(1), which sets ccache's compiler check")
mark_as_advanced(CUDA_XCC_ENV_PROGRAM)
if(CUDA_XCC_ENV_PROGRAM)
	set(_xcc_env "${CUDA_XCC_ENV_PROGRAM}")
else()
	set(_xcc_env "${CMAKE_COMMAND}" -E env)
endif()
# The assignments that give a CUDA compile the sysroot's identity: ccache's
# compiler check, with the prefix maps left out of its hash (they name each
# tree's own paths, mapped to the same names: what they do is in the
# preprocessed text and the object); sccache's cache buster, the one value
# of the compile's environment it adds to every C, C++ and CUDA key (it has
# no compiler_check and knows nvcc by nvcc's bytes alone). Values the user
# set at configure time are kept in front.
set(_xcc_ccache_identity)
set(_xcc_sccache_identity)
if(CUDA_XCC_QUERY_FINGERPRINT)
	set(_xcc_ignore "-Xcompiler=-ffile-prefix-map=*")
	if(NOT "$ENV{CCACHE_IGNOREOPTIONS}" STREQUAL "")
		set(_xcc_ignore "$ENV{CCACHE_IGNOREOPTIONS} ${_xcc_ignore}")
	endif()
	set(_xcc_ccache_identity "CCACHE_COMPILERCHECK=string:cuda-xcc-sysroot-${CUDA_XCC_QUERY_FINGERPRINT}"
		"CCACHE_IGNOREOPTIONS=${_xcc_ignore}")
	set(_xcc_buster "cuda-xcc-sysroot-${CUDA_XCC_QUERY_FINGERPRINT}")
	if(NOT "$ENV{SCCACHE_C_CUSTOM_CACHE_BUSTER}" STREQUAL "")
		set(_xcc_buster "$ENV{SCCACHE_C_CUSTOM_CACHE_BUSTER}-${_xcc_buster}")
	endif()
	set(_xcc_sccache_identity "SCCACHE_C_CUSTOM_CACHE_BUSTER=${_xcc_buster}")
endif()
macro(_xcc_ccache_identity)
	if(NOT DEFINED CMAKE_CUDA_COMPILER_LAUNCHER AND DEFINED ENV{CMAKE_CUDA_COMPILER_LAUNCHER})
		set(CMAKE_CUDA_COMPILER_LAUNCHER "$ENV{CMAKE_CUDA_COMPILER_LAUNCHER}")
	endif()
	set(_xcc_launcher0 "")
	if(CMAKE_CUDA_COMPILER_LAUNCHER)
		list(GET CMAKE_CUDA_COMPILER_LAUNCHER 0 _xcc_launcher0)
	endif()
	if(_xcc_ccache_identity AND _xcc_launcher0 MATCHES "(^|/)ccache$")
		set(CMAKE_CUDA_COMPILER_LAUNCHER ${_xcc_env} ${_xcc_ccache_identity}
			${CMAKE_CUDA_COMPILER_LAUNCHER})
	elseif(_xcc_sccache_identity AND _xcc_launcher0 MATCHES "(^|/)sccache$")
		set(CMAKE_CUDA_COMPILER_LAUNCHER ${_xcc_env} ${_xcc_sccache_identity}
			${CMAKE_CUDA_COMPILER_LAUNCHER})
	endif()
endmacro()
# A project that turns ccache (or sccache) on itself, with RULE_LAUNCH_COMPILE
# (as many large ones do), puts it in front of every compile, CUDA's too,
# where no compiler launcher of the command line is: CUDA compiles would go
# without the sysroot's identity. At the end of the configure, each target
# whose RULE_LAUNCH_COMPILE (its own, its directory's or the global one)
# names one runs it through a script of the build tree that sets the same
# assignments for the CUDA compiles alone (its first argument is the
# compile's <LANGUAGE>) and runs the rest; C and C++ keep the cache's own
# check of the cross gcc. A script, not env(1): the launcher is one for
# every language.
function(_xcc_rule_launch_identity)
	get_property(_langs GLOBAL PROPERTY ENABLED_LANGUAGES)
	if(NOT _xcc_ccache_identity OR NOT "CUDA" IN_LIST _langs)
		return()
	endif()
	set(_script "${CMAKE_BINARY_DIR}/CMakeFiles/cuda-xcc-rule-launch/launch")
	set(_text "#!/bin/sh\n# RULE_LAUNCH_COMPILE with the cuda-xcc sysroot's identity for CUDA compiles,\n# written by cuda-xcc's CMake toolchain file.\nif [ \"$1\" = CUDA ]; then\n")
	foreach(_a IN LISTS _xcc_ccache_identity _xcc_sccache_identity)
		_xcc_sh_quote("${_a}" _q)
		string(APPEND _text "\texport ${_q}\n")
	endforeach()
	# The launcher's own leading NAME=VALUE words, which the shell took as
	# assignments where the launcher came first.
	string(APPEND _text "fi\nshift\nwhile [ $# -gt 1 ]; do\n\tcase \${1%%=*} in\n"
		"\t''|[0-9]*|*[!A-Za-z0-9_]*) break ;;\n\tesac\n\tcase $1 in\n\t*=*) export \"$1\"; shift ;;\n"
		"\t*) break ;;\n\tesac\ndone\nexec \"$@\"\n")
	set(_written FALSE)
	_xcc_project_targets(_targets)
	foreach(_t IN LISTS _targets)
		get_target_property(_type ${_t} TYPE)
		if(_type STREQUAL "INTERFACE_LIBRARY" OR _type STREQUAL "UTILITY")
			continue()
		endif()
		get_target_property(_rl ${_t} RULE_LAUNCH_COMPILE)
		if(NOT _rl OR _rl MATCHES "cuda-xcc-rule-launch/launch' <LANGUAGE> ")
			continue()
		endif()
		separate_arguments(_words UNIX_COMMAND "${_rl}")
		set(_cache FALSE)
		foreach(_w IN LISTS _words)
			if(_w MATCHES "(^|/)s?ccache$")
				set(_cache TRUE)
			endif()
		endforeach()
		if(NOT _cache)
			continue()
		endif()
		# The launcher goes into every compile's command line as it is, where
		# sh reads it after make or ninja, which take '$$' for '$'. A line
		# break ends the command.
		if(_script MATCHES "[\n\r]")
			message(WARNING "cuda-xcc: RULE_LAUNCH_COMPILE runs a compiler cache in front of "
				"the CUDA compiles, but the build directory ${CMAKE_BINARY_DIR} holds a line "
				"break, which no command line can carry: those compiles go without the "
				"sysroot's fingerprint, and a sysroot swapped under the same path gives stale "
				"hits; build in a directory without one, or set CMAKE_CUDA_COMPILER_LAUNCHER "
				"instead")
			return()
		endif()
		_xcc_sh_quote("${_script}" _launch)
		string(REPLACE "$" "$$" _launch "${_launch}")
		if(NOT _written)
			_xcc_write_script("${_script}" "${_text}")
			set(_written TRUE)
		endif()
		set_property(TARGET ${_t} PROPERTY RULE_LAUNCH_COMPILE "${_launch} <LANGUAGE> ${_rl}")
	endforeach()
endfunction()

# Objects that do not depend on where the sysroot lies (CUB and Thrust pass
# __FILE__, the sysroot's path, into the preprocessed text; -g writes it into
# DWARF) nor, with CUDA_XCC_PREFIX_MAP_BUILD_TREE, where the checkout and
# the build tree lie: every pass that preprocesses maps them to fixed names
# (nvcc's host compiler through -Xcompiler), as the driver does. -objtemp
# names nvcc's intermediate files after the object, not after its process
# id, which the host object's file symbol would carry. A path these
# command-line strings cannot carry is left unmapped, and said.
function(_xcc_prefix_map_add old new)
	if("${old}" MATCHES "[] \t,=\"'\\$#&|;<>()`*?[~!{}]")
		message(STATUS "cuda-xcc: ${old} holds a space, a comma, an '=' or a shell character, "
			"which a prefix map in the compile flags cannot carry: objects built here name "
			"it, and compiler caches miss between trees at other paths")
		return()
	endif()
	set(_maps ${_xcc_maps} "${old}=${new}")
	set(_xcc_maps "${_maps}" PARENT_SCOPE)
endfunction()
macro(_xcc_prefix_maps)
	set(_xcc_maps)
	if(CUDA_XCC_PREFIX_MAP_BUILD_TREE)
		_xcc_prefix_map_add("${CMAKE_SOURCE_DIR}" /cuda-xcc/src)
		_xcc_prefix_map_add("${CMAKE_BINARY_DIR}" /cuda-xcc/build)
	endif()
	# Last, as gcc lets the last matching map win: a sysroot inside the
	# checkout is still the sysroot.
	_xcc_prefix_map_add("${CUDA_XCC_SYSROOT}" /cuda-xcc/sysroot)
	file(REAL_PATH "${CUDA_XCC_SYSROOT}" _xcc_real_sysroot)
	if(NOT _xcc_real_sysroot STREQUAL CUDA_XCC_SYSROOT)
		_xcc_prefix_map_add("${_xcc_real_sysroot}" /cuda-xcc/sysroot)
	endif()
	# C and C++ only where the trees are mapped as well: sccache hashes gcc's
	# own map options, paths and all (it counts nvcc's -Xcompiler values
	# among the preprocessor's, which it leaves out), so a map of the
	# sysroot alone would cost every C and C++ hit between runners.
	foreach(_xcc_map IN LISTS _xcc_maps)
		if(CUDA_XCC_PREFIX_MAP_BUILD_TREE)
			string(APPEND CMAKE_C_FLAGS_INIT " -ffile-prefix-map=${_xcc_map}")
			string(APPEND CMAKE_CXX_FLAGS_INIT " -ffile-prefix-map=${_xcc_map}")
		endif()
		string(APPEND CMAKE_CUDA_FLAGS_INIT " -Xcompiler=-ffile-prefix-map=${_xcc_map}")
	endforeach()
	string(APPEND CMAKE_CUDA_FLAGS_INIT " -objtemp")
	set_property(GLOBAL PROPERTY _CUDA_XCC_PREFIX_MAPS "${_xcc_maps}")
endmacro()
# cudafe++ hashes each CUDA source's absolute path into its module id (the
# _INTERNAL_<hash> of the object's symbols): with the build tree mapped,
# each .cu source of the project is given its mapped path, per source.
function(_xcc_map_cuda_sources)
	get_property(_maps GLOBAL PROPERTY _CUDA_XCC_PREFIX_MAPS)
	if(NOT CUDA_XCC_PREFIX_MAP_BUILD_TREE OR NOT _maps)
		return()
	endif()
	list(REVERSE _maps)
	_xcc_project_targets(_targets)
	foreach(_t IN LISTS _targets)
		get_target_property(_srcs ${_t} SOURCES)
		get_target_property(_tdir ${_t} SOURCE_DIR)
		foreach(_s IN LISTS _srcs)
			if(NOT _s MATCHES "\\.cu$" OR _s MATCHES "^\\$<")
				continue()
			endif()
			get_filename_component(_abs "${_s}" ABSOLUTE BASE_DIR "${_tdir}")
			foreach(_map IN LISTS _maps)
				string(REGEX MATCH "^(.*)=([^=]*)$" _ "${_map}")
				string(FIND "${_abs}/" "${CMAKE_MATCH_1}/" _at)
				if(_at EQUAL 0)
					string(LENGTH "${CMAKE_MATCH_1}" _n)
					string(SUBSTRING "${_abs}" ${_n} -1 _rest)
					set(_opt "-Xcudafe=--orig_src_path_name=${CMAKE_MATCH_2}${_rest}")
					get_source_file_property(_have "${_s}" TARGET_DIRECTORY ${_t}
						COMPILE_OPTIONS)
					if(NOT _opt IN_LIST _have)
						set_property(SOURCE "${_s}" TARGET_DIRECTORY ${_t} APPEND
							PROPERTY COMPILE_OPTIONS "${_opt}")
					endif()
					break()
				endif()
			endforeach()
		endforeach()
	endforeach()
endfunction()
# The project's directories, the top one first, for the checks at the end
# of the configure.
function(_cuda_xcc_directories out_var)
	set(_dirs "${CMAKE_SOURCE_DIR}")
	set(_all)
	while(_dirs)
		list(POP_FRONT _dirs _dir)
		list(APPEND _all "${_dir}")
		get_property(_subdirs DIRECTORY "${_dir}" PROPERTY SUBDIRECTORIES)
		list(APPEND _dirs ${_subdirs})
	endwhile()
	set(${out_var} "${_all}" PARENT_SCOPE)
endfunction()
# Every target of the project, directory by directory (at the end of the
# configure, when they are all defined).
function(_xcc_project_targets out_var)
	_cuda_xcc_directories(_dirs)
	set(_all)
	foreach(_dir IN LISTS _dirs)
		get_property(_targets DIRECTORY "${_dir}" PROPERTY BUILDSYSTEM_TARGETS)
		list(APPEND _all ${_targets})
	endforeach()
	set(${out_var} "${_all}" PARENT_SCOPE)
endfunction()

# nvcc's host compiler (-ccbin): the sysroot's cross g++, or the user's own
# CMAKE_CUDA_HOST_COMPILER (or CUDAHOSTCXX, CMake's variable for it), kept
# where it is that compiler under another name (a wrapper of theirs): the
# same target (-dumpmachine) and GCC major release as the cross g++ the
# sysroot was made with. Another is refused, for nvcc would build the host
# side for another machine or with a g++ this CUDA does not accept. The
# user's value is read from the cache: the normal variable this file sets
# hides it on later readings.
function(_xcc_gxx_identity gxx out_var)
	foreach(_q -dumpmachine -dumpfullversion)
		execute_process(COMMAND "${gxx}" ${_q} OUTPUT_VARIABLE _o ERROR_QUIET
			RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
		if(NOT _rc EQUAL 0)
			set(_o "")
		endif()
		# The release nvcc checks is the major one.
		if(_q STREQUAL "-dumpfullversion")
			string(REGEX REPLACE "\\..*" "" _o "${_o}")
		endif()
		list(APPEND _id "${_o}")
	endforeach()
	set(${out_var} "${_id}" PARENT_SCOPE)
endfunction()
function(_xcc_user_host_compiler out_var)
	set(_user "$CACHE{CMAKE_CUDA_HOST_COMPILER}")
	set(_from "CMAKE_CUDA_HOST_COMPILER")
	if(NOT _user AND _xcc_env_cudahostcxx)
		set(_user "${_xcc_env_cudahostcxx}")
		set(_from "CUDAHOSTCXX")
	endif()
	set(${out_var} "${_xcc_cxx}" PARENT_SCOPE)
	if(NOT _user OR _user STREQUAL _xcc_cxx)
		return()
	endif()
	find_program(_xcc_user_hostcc NAMES "${_user}" NO_CACHE)
	if(NOT _xcc_user_hostcc)
		_xcc_before_fatal()
		message(FATAL_ERROR "cuda-xcc: ${_from} '${_user}' names no program: name the "
			"sysroot's cross g++ (${CUDA_XCC_QUERY_HOST_COMPILER}) or a wrapper of it, or leave it unset")
	endif()
	_xcc_gxx_identity("${_xcc_cxx}" _want)
	_xcc_gxx_identity("${_xcc_user_hostcc}" _got)
	if(NOT _got STREQUAL _want)
		string(REPLACE ";" " GCC " _want "${_want}")
		string(REPLACE ";" " GCC " _got "${_got}")
		_xcc_before_fatal()
		message(FATAL_ERROR "cuda-xcc: ${_from} '${_user}' is a compiler for '${_got}', but "
			"the sysroot ${CUDA_XCC_SYSROOT} was made for ${CUDA_XCC_QUERY_HOST_COMPILER} ('${_want}'), the "
			"target and GCC release nvcc must build the host side with: name that compiler "
			"(or a wrapper that runs it), or leave ${_from} unset; for a launcher such as "
			"distcc in front of it, set CUDA_XCC_HOST_COMPILER_LAUNCHER")
	endif()
	set(${out_var} "${_xcc_user_hostcc}" PARENT_SCOPE)
endfunction()
# s as one word for sh: a path is data there, never code.
function(_xcc_sh_quote s out_var)
	string(REPLACE "'" "'\\''" _q "${s}")
	set(${out_var} "'${_q}'" PARENT_SCOPE)
endfunction()
# The script file with text, rewritten only when it changed, and whole: a
# build running it never sees half a script.
function(_xcc_write_script file text)
	set(_old "")
	if(EXISTS "${file}")
		file(READ "${file}" _old)
	endif()
	if(_old STREQUAL text)
		return()
	endif()
	get_filename_component(_dir "${file}" DIRECTORY)
	get_filename_component(_name "${file}" NAME)
	file(MAKE_DIRECTORY "${_dir}")
	file(WRITE "${_dir}/.${_name}.tmp" "${text}")
	file(CHMOD "${_dir}/.${_name}.tmp" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
		GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
	file(RENAME "${_dir}/.${_name}.tmp" "${file}")
endfunction()
# nvcc takes one program as its host compiler, no command: with
# CUDA_XCC_HOST_COMPILER_LAUNCHER (e.g. distcc; a list, or the environment
# variable of that name) a small script in the build tree runs the launcher
# with the host compiler, as CMAKE_<LANG>_COMPILER_LAUNCHER does for C and
# C++. nvcc gives it every host step: distcc sends the host compile of the
# split source to its servers and runs the preprocessing here. The script
# has the compiler's name, as nvcc and CMake expect of a g++.
function(_xcc_host_launcher_wrapper hostcc out_var)
	set(_words)
	list(GET CUDA_XCC_HOST_COMPILER_LAUNCHER 0 _first)
	find_program(_xcc_launcher_path NAMES "${_first}" NO_CACHE)
	if(NOT _xcc_launcher_path)
		_xcc_before_fatal()
		message(FATAL_ERROR "cuda-xcc: CUDA_XCC_HOST_COMPILER_LAUNCHER names '${_first}', "
			"which is not found: install it (e.g. apt-get install distcc) or name it by its "
			"path")
	endif()
	set(_args "${CUDA_XCC_HOST_COMPILER_LAUNCHER}")
	list(POP_FRONT _args)
	foreach(_w "${_xcc_launcher_path}" ${_args} "${hostcc}")
		_xcc_sh_quote("${_w}" _q)
		string(APPEND _words " ${_q}")
	endforeach()
	get_filename_component(_name "${hostcc}" NAME)
	set(_dir "${CMAKE_BINARY_DIR}/CMakeFiles/cuda-xcc-host-compiler")
	# The script's path reaches every CUDA command line as -ccbin=PATH.
	if(_dir MATCHES "[;\n\r]")
		_xcc_before_fatal()
		message(FATAL_ERROR "cuda-xcc: the build directory ${CMAKE_BINARY_DIR} holds a ';' or "
			"a line break, which nvcc's -ccbin on the build's command lines cannot carry: "
			"build in a directory without one to use CUDA_XCC_HOST_COMPILER_LAUNCHER")
	endif()
	set(_text "#!/bin/sh\n# nvcc's host compiler (-ccbin) through CUDA_XCC_HOST_COMPILER_LAUNCHER,\n# written by cuda-xcc's CMake toolchain file.\nexec${_words} \"$@\"\n")
	_xcc_write_script("${_dir}/${_name}" "${_text}")
	set(${out_var} "${_dir}/${_name}" PARENT_SCOPE)
endfunction()
macro(_xcc_cuda_host_compiler)
	if(NOT DEFINED CUDA_XCC_HOST_COMPILER_LAUNCHER
			AND NOT "$ENV{CUDA_XCC_HOST_COMPILER_LAUNCHER}" STREQUAL "")
		set(CUDA_XCC_HOST_COMPILER_LAUNCHER "$ENV{CUDA_XCC_HOST_COMPILER_LAUNCHER}")
	endif()
	# CMake would put CUDAHOSTCXX in place of the compiler checked here
	# (and of the launcher's script): taken out of the environment, and
	# kept for this file's later readings.
	if(NOT "$ENV{CUDAHOSTCXX}" STREQUAL "")
		set(_xcc_env_cudahostcxx "$ENV{CUDAHOSTCXX}")
		unset(ENV{CUDAHOSTCXX})
	endif()
	_xcc_user_host_compiler(_xcc_cuda_hostcc)
	if(CUDA_XCC_HOST_COMPILER_LAUNCHER)
		_xcc_host_launcher_wrapper("${_xcc_cuda_hostcc}" _xcc_cuda_hostcc)
	endif()
	set(CMAKE_CUDA_HOST_COMPILER "${_xcc_cuda_hostcc}")
endmacro()

# ctest, add_custom_command and try_run run target programs through cuda-xcc.
set(_xcc_emulator "${CUDA_XCC_EXECUTABLE}" run --sysroot "${CUDA_XCC_SYSROOT}")
if(CUDA_XCC_TARGET_FS)
	list(APPEND _xcc_emulator --target-fs "${CUDA_XCC_TARGET_FS}")
endif()
if(CUDA_XCC_DEVICE)
	list(APPEND _xcc_emulator --device "${CUDA_XCC_DEVICE}")
	if(CUDA_XCC_SSH_CONFIG)
		list(APPEND _xcc_emulator --ssh-config "${CUDA_XCC_SSH_CONFIG}")
	endif()
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${_xcc_emulator}")

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR "${CUDA_XCC_QUERY_PROCESSOR}")

find_program(_xcc_cxx "${CUDA_XCC_QUERY_HOST_COMPILER}" REQUIRED)
find_program(_xcc_cc "${CUDA_XCC_QUERY_HOST_COMPILER_C}" REQUIRED)
set(CMAKE_C_COMPILER "${_xcc_cc}")
set(CMAKE_CXX_COMPILER "${_xcc_cxx}")
set(CMAKE_CUDA_COMPILER "${CUDA_XCC_SYSROOT}/bin/nvcc")
_xcc_cuda_host_compiler()
# One word, as the caches parse it: sccache takes a separate value for a
# second input file ("multiple input files") and caches nothing.
set(CMAKE_CUDA_FLAGS_INIT "-target-dir=${CUDA_XCC_QUERY_TARGET_DIR}")
_xcc_prefix_maps()
# The system include spelling ccache's base_dir understands (the file says
# why); a rules file of the user's is kept.
if(NOT CMAKE_USER_MAKE_RULES_OVERRIDE_CUDA)
	set(CMAKE_USER_MAKE_RULES_OVERRIDE_CUDA "${CMAKE_CURRENT_LIST_DIR}/cuda-xcc-cuda-rules.cmake")
endif()
_xcc_ccache_identity()
# Another CUDA in the environment (CUDA_HOME=/usr/local/cuda and its bin on
# PATH, as on many workstations and CI images) must not mix into the build.
# A project's set(CUDAToolkit_ROOT "$ENV{CUDA_HOME}" CACHE PATH ...) finds
# the sysroot cached and keeps it; one reading CUDA_HOME, CUDA_PATH,
# CUDAToolkit_ROOT or CUDACXX after project(), FindCUDAToolkit and a
# find_program(nvcc) see the sysroot's. (Another CUDA's headers on CPATH,
# C_INCLUDE_PATH or CPLUS_INCLUDE_PATH, which reach every compile behind
# CMake's back, were refused by the query above; LIBRARY_PATH reaches only
# the links, which 'cuda-xcc check-link', the linker launcher below, runs
# without its entries in another CUDA.)
set(CUDAToolkit_ROOT "${CUDA_XCC_SYSROOT}")
set(CUDAToolkit_ROOT "${CUDA_XCC_SYSROOT}" CACHE PATH "the cuda-xcc sysroot" FORCE)
foreach(_xcc_var CUDA_HOME CUDA_PATH CUDAToolkit_ROOT)
	set(ENV{${_xcc_var}} "${CUDA_XCC_SYSROOT}")
endforeach()
if(DEFINED ENV{CUDA_ROOT})
	set(ENV{CUDA_ROOT} "${CUDA_XCC_SYSROOT}")
endif()
set(ENV{CUDACXX} "${CUDA_XCC_SYSROOT}/bin/nvcc")
string(FIND "$ENV{PATH}" "${CUDA_XCC_SYSROOT}/bin:" _xcc_at)
if(NOT _xcc_at EQUAL 0)
	set(ENV{PATH} "${CUDA_XCC_SYSROOT}/bin:$ENV{PATH}")
endif()
# FindCUDAToolkit before CMake 3.27 only knows targets/aarch64-linux for
# aarch64 and would miss an sbsa-linux sysroot; name the target dir for it.
set(CUDAToolkit_TARGET_DIR "${CUDA_XCC_SYSROOT}/targets/${CUDA_XCC_QUERY_TARGET_DIR}")

# The architectures, validated for this target and CUDA version. Every
# source goes through 'cuda-xcc flags', so a GPU this sysroot cannot serve
# fails here, whichever way it was named: -DCMAKE_CUDA_ARCHITECTURES (also
# "all" and "all-major"), the CUDAARCHS environment variable CMake itself
# reads, CUDA_XCC_ARCH, or the capabilities the sysroot was made for.
function(_xcc_validate_archs out_var)
	execute_process(
		COMMAND "${CUDA_XCC_EXECUTABLE}" flags --target "${CUDA_XCC_QUERY_TARGET}" --cuda "${CUDA_XCC_QUERY_CUDA}"
			${ARGN} --format cmake
		OUTPUT_VARIABLE _archs ERROR_VARIABLE _err
		RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
	if(NOT _rc EQUAL 0 AND _err MATCHES "linux-aarch64 libraries")
		# "--target jetson" is no answer in a configure: say it in CMake's words,
		# and leave out the flags' own "Use --target jetson."
		string(REPLACE "\nUse --target jetson." "" _err "${_err}")
		_xcc_before_fatal()
		message(FATAL_ERROR "${_xcc_archs_context}cuda-xcc: the sysroot ${CUDA_XCC_SYSROOT} is an SBSA one "
			"(target ${CUDA_XCC_QUERY_TARGET}: Arm servers; Debian's arm64 CUDA packages are SBSA "
			"builds), and the GPUs asked (CMAKE_CUDA_ARCHITECTURES, CUDAARCHS or "
			"CUDA_XCC_ARCH) are Jetson ones, whose libraries are NVIDIA's linux-aarch64 "
			"archives: make a Jetson sysroot from those ('cuda-xcc sysroot create --target "
			"jetson --cuda ${CUDA_XCC_QUERY_CUDA} -arch ...') and name it in -DCUDA_XCC_SYSROOT, or "
			"ask for an SBSA GPU.\n${_err}")
	elseif(NOT _rc EQUAL 0)
		_xcc_before_fatal()
		message(FATAL_ERROR "${_xcc_archs_context}${_err}")
	endif()
	set(${out_var} "${_archs}" PARENT_SCOPE)
endfunction()

# CMake's spelling of one architecture as cuda-xcc -arch arguments: 87-real
# is SASS only (sm_87), 87 SASS and PTX (compute_87); 87-virtual has no
# SASS and is checked as compute_87 but kept as written.
function(_xcc_cmake_arch_to_args entry out_var)
	if(entry MATCHES "^native$")
		_xcc_before_fatal()
		message(FATAL_ERROR "cuda-xcc: CUDA architectures 'native' means the GPU of the build "
			"machine, and a cross build targets another one: name the board's capability, "
			"e.g. -DCMAKE_CUDA_ARCHITECTURES=87-real for Jetson Orin")
	elseif(entry MATCHES "^(all|all-major)$")
		set(${out_var} -arch ${entry} PARENT_SCOPE)
	elseif(entry MATCHES "^([0-9]+[af]?)-real$")
		set(${out_var} -arch sm_${CMAKE_MATCH_1} PARENT_SCOPE)
	elseif(entry MATCHES "^([0-9]+[af]?)(-virtual)?$")
		set(${out_var} -arch compute_${CMAKE_MATCH_1} PARENT_SCOPE)
	else()
		_xcc_before_fatal()
		message(FATAL_ERROR "cuda-xcc: '${entry}' is not a CUDA architecture CMake knows "
			"(e.g. 87, 87-real, 90a-real, all, all-major)")
	endif()
endfunction()

# A value this file cached from CUDA_XCC_ARCH or the sysroot on an earlier
# run is not the user's, so a changed CUDA_XCC_ARCH still takes effect.
set(_xcc_archs_from)
if(DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL ""
		AND (_CUDA_XCC_ARCHS_FROM_USER
			OR NOT "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${_CUDA_XCC_CACHED_ARCHS}"))
	set(_xcc_archs_from "${CMAKE_CUDA_ARCHITECTURES}")
elseif(NOT "$ENV{CUDAARCHS}" STREQUAL "")
	set(_xcc_archs_from "$ENV{CUDAARCHS}")
endif()
# The toolchain's own GPUs: CUDA_XCC_ARCH, else the sysroot's.
set(_xcc_own_arch_args)
if(CUDA_XCC_ARCH)
	set(_xcc_own_arch_args -arch "${CUDA_XCC_ARCH}")
else()
	foreach(_xcc_cap IN LISTS CUDA_XCC_QUERY_CAPABILITIES)
		list(APPEND _xcc_own_arch_args -arch "${_xcc_cap}")
	endforeach()
endif()
# A refused value of the project's (its default CMAKE_CUDA_ARCHITECTURES set
# before project(), as many are) or the user's is named with the variable
# that carried it, against the toolchain's own GPUs, and the way out.
macro(_xcc_archs_refusal_context)
	if(DEFINED CMAKE_CUDA_ARCHITECTURES AND "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${_xcc_archs_from}")
		set(_xcc_from_var "CMAKE_CUDA_ARCHITECTURES")
	else()
		set(_xcc_from_var "CUDAARCHS (the environment)")
	endif()
	execute_process(
		COMMAND "${CUDA_XCC_EXECUTABLE}" flags --target "${CUDA_XCC_QUERY_TARGET}" --cuda "${CUDA_XCC_QUERY_CUDA}"
			${_xcc_own_arch_args} --format cmake
		OUTPUT_VARIABLE _xcc_own ERROR_QUIET RESULT_VARIABLE _xcc_own_rc
		OUTPUT_STRIP_TRAILING_WHITESPACE)
	if(NOT _xcc_own_rc EQUAL 0)
		set(_xcc_own "...")
	endif()
	string(CONCAT _xcc_archs_context "cuda-xcc: ${_xcc_from_var} is '${_xcc_archs_from}' (the project's "
		"default or the command line's), which this sysroot cannot build for; the "
		"toolchain's GPUs are '${_xcc_own}' (CUDA_XCC_ARCH, else the sysroot's): configure "
		"with -DCMAKE_CUDA_ARCHITECTURES=${_xcc_own} to build for those (a project default set "
		"only when none is defined then yields), or name a sysroot made for the GPUs asked.\n")
endmacro()
if(_xcc_archs_from)
	_xcc_archs_refusal_context()
	set(_xcc_arch_args)
	set(_xcc_keep_spelling TRUE)
	foreach(_xcc_entry IN LISTS _xcc_archs_from)
		_xcc_cmake_arch_to_args("${_xcc_entry}" _xcc_args)
		list(APPEND _xcc_arch_args ${_xcc_args})
		if(_xcc_entry MATCHES "^all")
			set(_xcc_keep_spelling FALSE)
		endif()
	endforeach()
	if(_xcc_keep_spelling)
		# Explicit entries are the user's choice of SASS and PTX: check them
		# and keep them as written.
		_xcc_validate_archs(_xcc_archs ${_xcc_arch_args} --ptx none)
		set(_xcc_archs "${_xcc_archs_from}")
	else()
		# "all" is nvcc's list for this CUDA release, which holds GPUs this
		# target cannot run: take cuda-xcc's list for the target instead.
		_xcc_validate_archs(_xcc_archs ${_xcc_arch_args})
	endif()
	unset(_xcc_archs_context)
else()
	_xcc_validate_archs(_xcc_archs ${_xcc_own_arch_args})
endif()
set(CMAKE_CUDA_ARCHITECTURES "${_xcc_archs}" CACHE STRING "validated by cuda-xcc" FORCE)
set(_CUDA_XCC_CACHED_ARCHS "${_xcc_archs}" CACHE INTERNAL "")
if(_xcc_archs_from)
	set(_CUDA_XCC_ARCHS_FROM_USER TRUE CACHE INTERNAL "")
else()
	set(_CUDA_XCC_ARCHS_FROM_USER FALSE CACHE INTERNAL "")
endif()

# CMake's old FindCUDA module (find_package(CUDA), cuda_add_executable,
# CUDA_SELECT_NVCC_ARCH_FLAGS) searches nothing when cross compiling ("Could
# NOT find CUDA (missing: CUDA_TOOLKIT_ROOT_DIR)") and knows no sbsa-linux:
# its variables name the sysroot, nvcc and the cross g++, as the Yocto class
# sets them. The validated GPUs are what it builds for: CUDA_NVCC_FLAGS'
# first value (a project appending to it keeps them), and the answer of
# CUDA_SELECT_NVCC_ARCH_FLAGS(... Auto), whose detection would run a
# program under the emulator, fail, and fall back to CMake's list of common
# GPUs (sm_53, a Jetson one, to sm_86). GPUs a project names itself in
# CUDA_NVCC_FLAGS are checked at the end of the configure.
function(_xcc_findcuda)
	set(_gencode "-target-dir=${CUDA_XCC_QUERY_TARGET_DIR}")
	set(_detected "")
	foreach(_a IN LISTS _xcc_archs)
		if(NOT _a MATCHES "^([0-9]+)([0-9])([af]?)(-real|-virtual)?$")
			continue()
		endif()
		# An unmatched group leaves its CMAKE_MATCH_<n> undefined.
		set(_n "${CMAKE_MATCH_1}${CMAKE_MATCH_2}${CMAKE_MATCH_3}")
		set(_cc "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
		set(_kind "${CMAKE_MATCH_4}")
		if(NOT _kind STREQUAL "-virtual")
			list(APPEND _gencode "-gencode=arch=compute_${_n},code=sm_${_n}")
		endif()
		if(NOT _kind STREQUAL "-real")
			list(APPEND _gencode "-gencode=arch=compute_${_n},code=compute_${_n}")
		endif()
		# The answer of CUDA_SELECT_NVCC_ARCH_FLAGS(... Auto): SASS, and
		# PTX where it was asked.
		if(_kind STREQUAL "")
			string(APPEND _detected " ${_cc}+PTX")
		elseif(_kind STREQUAL "-real")
			string(APPEND _detected " ${_cc}")
		endif()
	endforeach()
	string(STRIP "${_detected}" _detected)
	set(_root "${CUDA_XCC_SYSROOT}")
	set(_tdir "${CUDA_XCC_SYSROOT}/targets/${CUDA_XCC_QUERY_TARGET_DIR}")
	set(CUDA_TOOLKIT_ROOT_DIR "${_root}" CACHE PATH "the cuda-xcc sysroot" FORCE)
	set(CUDA_TOOLKIT_TARGET_DIR "${_tdir}" CACHE PATH "the sysroot's target directory" FORCE)
	set(CUDA_NVCC_EXECUTABLE "${CUDA_XCC_SYSROOT}/bin/nvcc" CACHE FILEPATH "the sysroot's nvcc"
		FORCE)
	set(CUDA_HOST_COMPILER "${CMAKE_CUDA_HOST_COMPILER}" CACHE FILEPATH "the cross g++" FORCE)
	# FindCUDA forgets the target directory, nvcc, the libraries and the
	# detection result whenever the root differs from the one it saw last.
	set(CUDA_TOOLKIT_ROOT_DIR_INTERNAL "${_root}" CACHE INTERNAL "" FORCE)
	set(CUDA_TOOLKIT_TARGET_DIR_INTERNAL "${_tdir}" CACHE INTERNAL "" FORCE)
	# FindCUDA's own cache entry of the same name, made first: its set()
	# keeps it. Replaced only while it is what this file wrote.
	if(NOT DEFINED CACHE{CUDA_NVCC_FLAGS}
			OR "$CACHE{CUDA_NVCC_FLAGS}" STREQUAL "${_CUDA_XCC_FINDCUDA_FLAGS}")
		set(CUDA_NVCC_FLAGS "${_gencode}" CACHE STRING "validated by cuda-xcc" FORCE)
	endif()
	set(_CUDA_XCC_FINDCUDA_FLAGS "${_gencode}" CACHE INTERNAL "")
	set(CUDA_GPU_DETECT_OUTPUT "${_detected}" CACHE INTERNAL "the GPUs validated by cuda-xcc"
		FORCE)
	# The libraries FindCUDA looks for in the target directory.
	set(ENV{CUDA_TOOLKIT_ROOT} "${_root}")
endfunction()
_xcc_findcuda()

# Look for the target's headers and libraries only inside the sysroot (and
# the device's root filesystem); programs come from the build machine.
set(CMAKE_FIND_ROOT_PATH "${CUDA_XCC_SYSROOT}/targets/${CUDA_XCC_QUERY_TARGET_DIR}" "${CUDA_XCC_SYSROOT}")
if(CUDA_XCC_TARGET_FS)
	list(APPEND CMAKE_FIND_ROOT_PATH "${CUDA_XCC_TARGET_FS}")
	set(CMAKE_SYSROOT "${CUDA_XCC_TARGET_FS}")
	# C, C++ and CUDA compile and link against the root alike, with the
	# driver's own options: Debian's cross gcc searches its own
	# /usr/<triple> before any --sysroot, so --sysroot alone links the
	# cross toolchain's libc beside the root's libpthread
	# (__libc_pthread_init@GLIBC_PRIVATE). -B puts the root's multiarch
	# dirs first, -rpath-link follows its NEEDED chains, and an overlay
	# stands in for its absolute links (libpthread.so -> /lib/...).
	function(_xcc_target_fs_flags out_var)
		execute_process(
			COMMAND "${CUDA_XCC_EXECUTABLE}" toolchain flags --sysroot "${CUDA_XCC_SYSROOT}"
				--target-fs "${CUDA_XCC_TARGET_FS}" ${ARGN}
			OUTPUT_VARIABLE _flags ERROR_VARIABLE _err
			RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
		if(NOT _rc EQUAL 0)
			_xcc_before_fatal()
			message(FATAL_ERROR "${_err}")
		endif()
		string(REPLACE "\n" " " _flags "${_flags}")
		set(${out_var} "${_flags}" PARENT_SCOPE)
	endfunction()
	_xcc_target_fs_flags(_xcc_fs_gcc)
	_xcc_target_fs_flags(_xcc_fs_nvcc --nvcc)
	string(APPEND CMAKE_C_FLAGS_INIT " ${_xcc_fs_gcc}")
	string(APPEND CMAKE_CXX_FLAGS_INIT " ${_xcc_fs_gcc}")
	string(APPEND CMAKE_CUDA_FLAGS_INIT " ${_xcc_fs_nvcc}")
else()
	# Debian's cross toolchains keep the target's C library (librt, libdl...) in
	# /usr/TRIPLE; one that fetch-cross-toolchain.sh unpacked, in DIR/usr/TRIPLE.
	get_filename_component(_xcc_tc_root "${_xcc_cxx}/../.." ABSOLUTE)
	if(EXISTS "${_xcc_tc_root}/cuda-xcc-toolchain" AND EXISTS "${_xcc_tc_root}/usr/${CUDA_XCC_QUERY_TRIPLE}/lib")
		list(APPEND CMAKE_FIND_ROOT_PATH "${_xcc_tc_root}/usr/${CUDA_XCC_QUERY_TRIPLE}")
	elseif(EXISTS "/usr/${CUDA_XCC_QUERY_TRIPLE}/lib")
		list(APPEND CMAKE_FIND_ROOT_PATH "/usr/${CUDA_XCC_QUERY_TRIPLE}")
	endif()
	unset(_xcc_tc_root)
endif()
# After each link of an executable or shared library, the floor check the
# driver runs after its own links. A launcher the user set is kept.
set(_xcc_check_link "${CUDA_XCC_EXECUTABLE}" check-link --sysroot "${CUDA_XCC_SYSROOT}")
if(CUDA_XCC_TARGET_FS)
	list(APPEND _xcc_check_link --target-fs "${CUDA_XCC_TARGET_FS}")
endif()
if(CUDA_XCC_STRICT)
	list(APPEND _xcc_check_link --strict)
endif()
# No floor is known for a server GPU without its root filesystem: said once
# per configure, not at every link (check-link --no-floor-note).
if(NOT CUDA_XCC_QUERY_TARGET STREQUAL "jetson" AND NOT CUDA_XCC_TARGET_FS)
	list(APPEND _xcc_check_link --no-floor-note)
	get_property(_xcc_said GLOBAL PROPERTY _CUDA_XCC_NO_FLOOR_SAID)
	if(NOT _xcc_said)
		set_property(GLOBAL PROPERTY _CUDA_XCC_NO_FLOOR_SAID TRUE)
		message(STATUS "cuda-xcc: no runtime floor is known for --target ${CUDA_XCC_QUERY_TARGET}, so "
			"the links are not checked against the device's C library and C++ runtime: "
			"give -DCUDA_XCC_TARGET_FS=ROOTFS (the server's root filesystem) to check them")
	endif()
endif()
list(APPEND _xcc_check_link --)
foreach(_xcc_lang C CXX CUDA)
	if(NOT DEFINED CMAKE_${_xcc_lang}_LINKER_LAUNCHER
			OR "${CMAKE_${_xcc_lang}_LINKER_LAUNCHER}" STREQUAL "${_CUDA_XCC_LINKER_LAUNCHER}")
		set(CMAKE_${_xcc_lang}_LINKER_LAUNCHER "${_xcc_check_link}")
	endif()
endforeach()
set(_CUDA_XCC_LINKER_LAUNCHER "${_xcc_check_link}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# NVIDIA's products beyond CUDA in the sysroot's target directory, where find modules
# look for them with NO_DEFAULT_PATH: TensorRT through TensorRT_ROOT or TENSORRT_ROOT,
# cuDNN through CUDNN_ROOT, CUDNN_ROOT_DIR or CUDNN_PATH (as in find_library(NVINFER nvinfer
# HINTS ${TensorRT_ROOT} PATH_SUFFIXES lib NO_DEFAULT_PATH)); a project's own value stays.
# L4T's multimedia libraries are in lib/nvidia, as on the board. A product's CMake package
# files (lib/cmake/<name>/, where one ships them) are found through CMAKE_FIND_ROOT_PATH.
function(_xcc_product_hints)
	set(_tdir "${CUDA_XCC_SYSROOT}/targets/${CUDA_XCC_QUERY_TARGET_DIR}")
	set(_hints)
	if(EXISTS "${_tdir}/include/NvInfer.h")
		list(APPEND _hints TensorRT_ROOT TENSORRT_ROOT)
	endif()
	if(EXISTS "${_tdir}/include/cudnn.h")
		list(APPEND _hints CUDNN_ROOT CUDNN_ROOT_DIR CUDNN_PATH)
	endif()
	foreach(_v IN LISTS _hints)
		if(NOT DEFINED ${_v} AND NOT DEFINED ENV{${_v}})
			set(${_v} "${_tdir}" PARENT_SCOPE)
		endif()
	endforeach()
	if(IS_DIRECTORY "${_tdir}/lib/nvidia" AND NOT "${_tdir}/lib/nvidia" IN_LIST CMAKE_LIBRARY_PATH)
		set(CMAKE_LIBRARY_PATH ${CMAKE_LIBRARY_PATH} "${_tdir}/lib/nvidia" PARENT_SCOPE)
	endif()
endfunction()
_xcc_product_hints()

# A cross ld follows the NEEDED entries of the libraries it links through
# -rpath-link and its own search directories alone, never through their
# RUNPATH: an executable that links only a shared library of the project,
# which links CUDA::cudart, CUDA::cublas or CUDA::cuda_driver, failed with
# "libcudart.so.12, needed by libfoo.so, not found" and undefined references.
# The sysroot's target libraries go on -rpath-link of every link of
# executables and shared libraries (C, C++ and CUDA alike), and so does a
# directory in the build tree holding a libcuda.so.1 that names CUDA's stub:
# the driver library exists only on the board. Both are for the link alone:
# nothing of them is recorded in what is built (-rpath-link is no RUNPATH),
# and no program loads the stub from there.
function(_xcc_rpath_link)
	set(_lib "${CUDA_XCC_SYSROOT}/targets/${CUDA_XCC_QUERY_TARGET_DIR}/lib")
	set(_dirs "${_lib}")
	if(EXISTS "${_lib}/stubs/libcuda.so")
		set(_stubs "${CMAKE_BINARY_DIR}/CMakeFiles/cuda-xcc-link-libcuda")
		set(_have "")
		if(IS_SYMLINK "${_stubs}/libcuda.so.1")
			file(READ_SYMLINK "${_stubs}/libcuda.so.1" _have)
		endif()
		# Replaced whole, by a rename: a link running meanwhile sees the old
		# name or the new one.
		if(NOT _have STREQUAL "${_lib}/stubs/libcuda.so")
			file(MAKE_DIRECTORY "${_stubs}")
			file(REMOVE "${_stubs}/.libcuda.so.1.tmp")
			file(CREATE_LINK "${_lib}/stubs/libcuda.so" "${_stubs}/.libcuda.so.1.tmp" SYMBOLIC)
			file(RENAME "${_stubs}/.libcuda.so.1.tmp" "${_stubs}/libcuda.so.1")
		endif()
		list(APPEND _dirs "${_stubs}")
	endif()
	get_property(_options DIRECTORY PROPERTY LINK_OPTIONS)
	foreach(_dir IN LISTS _dirs)
		# The compiler driver splits a -Wl, option at its commas.
		if(_dir MATCHES ",")
			message(WARNING "cuda-xcc: ${_dir} holds a ',', which the compiler splits in "
				"linker options, so it is not on the links' -rpath-link: an executable that "
				"links a shared library linking the sysroot's libraries will not link; move "
				"the sysroot (or the build tree) to a path without one")
			continue()
		endif()
		# The host link only: a CUDA device link (nvlink) takes no such option.
		set(_option "$<HOST_LINK:LINKER:-rpath-link=${_dir}>")
		if(NOT _option IN_LIST _options)
			add_link_options("${_option}")
		endif()
	endforeach()
endfunction()
_xcc_rpath_link()

# A sysroot holds only the libraries it was made with, so FindCUDAToolkit
# defines no CUDA::cublas in one made without libcublas, and CMake's own
# error ("target not found") does not say why. At the end of the top-level
# CMakeLists, each target that links a CUDA:: library the sysroot lacks is
# named with the component to add. The library names are FindCUDAToolkit's
# (its CUDA_<name>_LIBRARY cache entries are global, unlike the imported
# targets), the components cuda-xcc's.
set(_CUDA_XCC_LIBRARY_COMPONENTS
	cublas=libcublas cublasLt=libcublas cublas_static=libcublas cublasLt_static=libcublas
	cufft=libcufft cufftw=libcufft cufft_static=libcufft curand=libcurand
	curand_static=libcurand cusparse=libcusparse cusparse_static=libcusparse
	cusolver=libcusolver cusolver_static=libcusolver nvjpeg=libnvjpeg
	nvjpeg_static=libnvjpeg nppc=libnpp nvrtc=cuda_nvrtc cupti=cuda_cupti
	nvToolsExt=cuda_nvtx nvml=cuda_nvml_dev)
function(_cuda_xcc_check_cuda_links)
	_xcc_project_targets(_targets)
	foreach(_t IN LISTS _targets)
		get_target_property(_libs ${_t} LINK_LIBRARIES)
		get_target_property(_ilibs ${_t} INTERFACE_LINK_LIBRARIES)
		foreach(_l IN LISTS _libs _ilibs)
			if(NOT _l MATCHES "^CUDA::(.+)$")
				continue()
			endif()
			set(_lib "${CMAKE_MATCH_1}")
			if(NOT "${CUDA_${_lib}_LIBRARY}" MATCHES "-NOTFOUND$")
				continue()
			endif()
			foreach(_pair IN LISTS _CUDA_XCC_LIBRARY_COMPONENTS)
				if(_pair MATCHES "^${_lib}=(.*)$")
					message(SEND_ERROR "cuda-xcc: ${_t} links CUDA::${_lib}, but the "
						"sysroot ${CUDA_XCC_SYSROOT} was made without ${CMAKE_MATCH_1}: "
						"create it again with 'cuda-xcc sysroot create ... --components "
						"${CMAKE_MATCH_1}'")
				endif()
			endforeach()
		endforeach()
	endforeach()
endfunction()
# The GPUs a project names itself for FindCUDA (set(CUDA_NVCC_FLAGS
# -gencode arch=compute_53,code=sm_53 ...), or list(APPEND ...) with
# CUDA_SELECT_NVCC_ARCH_FLAGS' answer for a list of its own), in any
# directory: checked as the CUDA language's are, for this target and CUDA.
function(_cuda_xcc_check_findcuda_flags)
	_cuda_xcc_directories(_dirs)
	foreach(_dir IN LISTS _dirs)
		get_directory_property(_flags DIRECTORY "${_dir}" DEFINITION CUDA_NVCC_FLAGS)
		if("${_flags}" STREQUAL "${_CUDA_XCC_FINDCUDA_FLAGS}")
			continue()
		endif()
		string(REGEX MATCHALL "(sm|compute)_[0-9]+[af]?" _gpus "${_flags}")
		list(REMOVE_DUPLICATES _gpus)
		if(NOT _gpus)
			continue()
		endif()
		set(_args)
		foreach(_g IN LISTS _gpus)
			list(APPEND _args -arch "${_g}")
		endforeach()
		execute_process(
			COMMAND "${CUDA_XCC_EXECUTABLE}" flags --target "${CUDA_XCC_QUERY_TARGET}" --cuda "${CUDA_XCC_QUERY_CUDA}"
				${_args} --ptx none
			OUTPUT_QUIET ERROR_VARIABLE _err RESULT_VARIABLE _rc)
		if(NOT _rc EQUAL 0)
			string(REPLACE ";" " " _gpus "${_gpus}")
			file(RELATIVE_PATH _where "${CMAKE_SOURCE_DIR}" "${_dir}")
			if(_where STREQUAL "")
				set(_where ".")
			endif()
			message(FATAL_ERROR "cuda-xcc: CUDA_NVCC_FLAGS (FindCUDA) in ${_where}/CMakeLists.txt "
				"asks for ${_gpus}, which this sysroot (target ${CUDA_XCC_QUERY_TARGET}, CUDA "
				"${CUDA_XCC_QUERY_CUDA}) cannot build for: take those -gencode/-arch flags out and keep "
				"the toolchain's (list(APPEND CUDA_NVCC_FLAGS ...) rather than set(), or "
				"CUDA_SELECT_NVCC_ARCH_FLAGS(VAR Auto)), or choose GPUs with "
				"-DCUDA_XCC_ARCH=...\n${_err}")
		endif()
	endforeach()
endfunction()
# CMake reads a toolchain file more than once per project: check once.
get_property(_xcc_deferred GLOBAL PROPERTY _CUDA_XCC_LINK_CHECK_DEFERRED)
if(NOT _xcc_deferred)
	set_property(GLOBAL PROPERTY _CUDA_XCC_LINK_CHECK_DEFERRED TRUE)
	cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _cuda_xcc_check_cuda_links)
	cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _xcc_map_cuda_sources)
	cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _cuda_xcc_check_findcuda_flags)
	cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _xcc_rule_launch_identity)
endif()
cmake_policy(POP)
