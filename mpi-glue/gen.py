#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gen.py MPI TABLE OUTDIR: the glue's wrappers for one MPI from calls.def.

Writes OUTDIR/calls.h (call numbers for the counters, the glue_NAME
prototypes), OUTDIR/calls.c (the glue's logic of each call, glue_NAME,
and of the large-count _c forms that this MPI's mpi.h declares),
OUTDIR/pmpi.c (the exported MPI_NAME and PMPI_NAME of each, and the
glue's way on to the next layer, __wrap_PMPI_NAME), OUTDIR/link.opts (ld
--wrap=PMPI_NAME: the glue's own calls of PMPI_NAME go on to the MPI, not
back into the glue) and OUTDIR/fentries.c (the Fortran entry points of
the bindings that call PMPI_ functions directly).  What the MPI has is read from its header
(mpicc.MPI -E) and from the symbols of its Fortran libraries (a program
built with mpif90.MPI, ldd, nm -D), never from version numbers.
"""
import os
import re
import subprocess
import sys
import tempfile

STATUS_ARGS = ("status",)


def die(msg):
    sys.exit("gen.py: " + msg)


class Arg:
    """One C parameter: its type (arrays as T[]) and its name."""

    QUALIFIERS = ("const", "struct", "unsigned", "signed", "long", "short")

    def __init__(self, text):
        text = " ".join(text.split())
        arr = text.endswith("]")
        if arr:
            text = text[: text.rindex("[")].strip()
        toks = re.findall(r"\w+|\*", text)
        # the last word is a name if a type word comes before it
        if (len(toks) > 1 and re.match(r"\w", toks[-1]) and
                any(t not in self.QUALIFIERS and t != "*"
                    for t in toks[:-1])):
            self.name = toks[-1]
            toks = toks[:-1]
        else:
            self.name = None
        self.type = re.sub(r"\* \*", "**", " ".join(toks)).replace(
            "* *", "**") + ("[]" if arr else "")

    def norm(self):
        """The type with T[] and T * alike, for comparing with a header."""
        t = self.type
        if t.endswith("[]"):
            t = t[:-2].strip() + " *"
        return t.replace(" ", "")

    def decl(self):
        if self.type.endswith("[]"):
            return "%s %s[]" % (self.type[:-2], self.name)
        if self.type.endswith("*"):
            return "%s%s" % (self.type, self.name)
        return "%s %s" % (self.type, self.name)

    def is_array(self):
        return self.type.endswith("[]")

    def base(self):
        return self.type.replace("const ", "").rstrip("[]* ")


def split_args(text):
    text = text.strip()
    if text in ("", "void"):
        return []
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    out.append(cur)
    return [c.strip() for c in out]


class Call:
    def __init__(self, name, how, args):
        self.name = name
        self.how, _, self.extra = how.partition("/")
        self.args = [Arg(a) for a in split_args(args)]
        if any(a.name is None for a in self.args):
            die("%s: every argument needs a name" % name)
        if self.how not in ("p2p", "coll", "wait", "prog", "own"):
            die("%s: HOW '%s'" % (name, how))

    def arg(self, name):
        return next((a for a in self.args if a.name == name), None)


def read_table(path):
    calls = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                die("short line: " + line.strip())
            calls.append(Call(*parts))
    return calls


def read_header(mpi):
    """Every int-returning MPI_/PMPI_ prototype of mpi.h: name -> [Arg]."""
    src = subprocess.run(["mpicc." + mpi, "-E", "-P", "-x", "c", "-"],
                         input="#include <mpi.h>\n", capture_output=True,
                         text=True, check=True).stdout
    protos = {}
    for m in re.finditer(r"\bint\s+(P?MPI_\w+)\s*\(", src):
        i, depth = m.end(), 1
        while depth:
            depth += {"(": 1, ")": -1}.get(src[i], 0)
            i += 1
        body = src[m.end(): i - 1]
        if "(" in body:         # a function-pointer argument: not ours
            continue
        protos[m.group(1)] = [Arg(a) for a in split_args(body)]
    return protos


def fortran_symbols(mpi):
    """(defined, referenced) dynamic symbols of each Fortran library."""
    fc = "mpif90." + mpi
    libs = {}
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "p.f90")
        with open(prog, "w") as f:
            f.write("program p\nuse mpi_f08\ncall MPI_Init()\n"
                    "call MPI_Finalize()\nend program\n")
        try:
            subprocess.run([fc, "-o", os.path.join(tmp, "p"), prog],
                           check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            print("gen.py: %s cannot build a Fortran program: no Fortran "
                  "entry points for %s" % (fc, mpi))
            return libs
        ldd = subprocess.run(["ldd", os.path.join(tmp, "p")],
                             capture_output=True, text=True).stdout
    for path in re.findall(r"=>\s*(\S+)", ldd):
        nm = subprocess.run(["nm", "-D", path], capture_output=True,
                            text=True).stdout
        defs, refs = set(), set()
        for line in nm.splitlines():
            f = line.split()
            if len(f) == 2 and f[0] == "U":
                refs.add(f[1].split("@")[0])
            elif len(f) == 3 and f[1] in "TWBDV":
                defs.add(f[2].split("@")[0])
        if any(s.startswith("mpi_init") for s in defs):
            libs[path] = (defs, refs)
    return libs


# ---------------------------------------------------------------- C side

def call_args(args):
    return ", ".join(a.name for a in args)


def start_name(name):
    """The non-blocking call that starts blocking NAME: Send -> Isend."""
    return "I" + name[0].lower() + name[1:]


def c_wrapper(c, suffix, args, protos):
    """glue_<name><suffix>, the logic of MPI_<name><suffix> (pmpi.c
    exports it), or None when the MPI lacks what it needs."""
    name = c.name + suffix
    params = ", ".join(a.decl() for a in args) or "void"
    nb_name = "PMPI_" + start_name(c.name) + suffix
    # The non-blocking start of a p2p or coll wrapper is an intercepted
    # call (a prog line, main() checks), so it goes through
    # __wrap_PMPI_X (link.opts), looked up at its first call: the glue
    # loads where the library lacks a large-count form.
    out = ["int glue_%s(%s)" % (name, params), "{"]
    if c.how == "p2p":
        nbargs = [a for a in args if a.name not in STATUS_ARGS]
        if nb_name not in protos or len(protos[nb_name]) != len(nbargs) + 1:
            return None
        status = "status" if c.arg("status") else "MPI_STATUS_IGNORE"
        cond = "!glue_active()" + (" || %s" % c.extra if c.extra else "")
        out += ["\tMPI_Request req;", "\tint rc;", "",
                "\tglue_count(GC_%s);" % c.name,
                "\tif (%s)" % cond,
                "\t\treturn glue_plain(PMPI_%s(%s));" % (name, call_args(args)),
                "\trc = %s(%s, &req);" % (nb_name, call_args(nbargs)),
                "\treturn rc != MPI_SUCCESS ? rc : glue_wait_one(&req, %s);"
                % status]
    elif c.how == "coll":
        if nb_name not in protos or len(protos[nb_name]) != len(args) + 1:
            return None
        out += ["\tMPI_Request req;", "",
                "\tglue_count(GC_%s);" % c.name,
                "\tif (!glue_nb(comm))",
                "\t\treturn glue_plain(PMPI_%s(%s));" % (name, call_args(args)),
                "\treturn glue_finish(glue_start(%s(%s, &req)), &req);"
                % (nb_name, call_args(args))]
    elif c.how == "prog":
        out += ["\tglue_count(GC_%s);" % c.name,
                "\treturn glue_plain(PMPI_%s(%s));" % (name, call_args(args))]
    elif c.how == "wait":
        fields = [".kind = %s," % c.extra]
        if not c.arg("count"):
            fields.append(".count = 1,")
        fields += [".%s = %s," % (a.name, a.name) for a in args]
        out += ["\tstruct glue_wait w = {"] + \
               ["\t\t" + f for f in fields] + \
               ["\t};", "", "\tglue_count(GC_%s);" % c.name,
                "\treturn glue_wait(&w);"]
    else:
        return None
    out.append("}")
    return "\n".join(out)


def check_proto(c, protos):
    h = protos.get("MPI_" + c.name)
    if h is None:
        die("mpi.h does not declare MPI_%s" % c.name)
    if [a.norm() for a in h] != [a.norm() for a in c.args]:
        die("MPI_%s: the table's arguments (%s) are not mpi.h's (%s)" %
            (c.name, ", ".join(a.type for a in c.args),
             ", ".join(a.type for a in h)))


def large_count_args(c, protos):
    """The _c form's arguments: mpi.h's types, the table's names."""
    h = protos.get("MPI_%s_c" % c.name)
    if h is None or len(h) != len(c.args) or \
            "PMPI_%s_c" % c.name not in protos:
        return None
    out = []
    for mine, theirs in zip(c.args, h):
        a = Arg(mine.decl())
        a.type = theirs.type
        out.append(a)
    return out


# ---------------------------------------------------------- Fortran side

HANDLES = {"MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Op": "Op",
           "MPI_Win": "Win", "MPI_Message": "Message", "MPI_Group": "Group",
           "MPI_Request": "Request"}


def fortran_body(c, f08):
    """A static function of the Fortran arguments calling glue_<name>.

    The MPI's own entry calls PMPI_<name>, past any C tool: so does the
    glue's (a tool sees the same calls with the glue as without)."""
    fparams, pre, cargs, post, frees = [], [], [], [], []
    status_t = "MPI_F08_status" if f08 else "MPI_Fint"
    ign = "glue_f08_ignored" if f08 else "glue_f_ignored"
    # MPICH has MPI_Status_c2f08 in its Fortran library, not libmpich:
    # fortran.c finds it when called (a C program has none).
    c2f_status = "glue_status_c2f08" if f08 else "PMPI_Status_c2f"
    for a in c.args:
        n, b = a.name, a.base()
        if b == "void" and "*" in a.type:
            fparams.append("void *%s" % n)
            cargs.append("glue_f_buf(%s)" % n)
        elif b == "MPI_Status" and not a.is_array():
            fparams.append("%s *%s" % (status_t, n))
            pre.append("MPI_Status c_%s;" % n)
            cargs.append("%s(%s, 0) ? MPI_STATUS_IGNORE : &c_%s" % (ign, n, n))
            post.append("if (!%s(%s, 0))\n\t\t%s(&c_%s, %s);" %
                        (ign, n, c2f_status, n, n))
        elif b == "MPI_Status":
            fparams.append("%s *%s" % (status_t, n))
            pre.append("MPI_Status *c_%s = %s(%s, 1) ? MPI_STATUSES_IGNORE :"
                       " glue_f_alloc(*count, sizeof(MPI_Status), &rc);" %
                       (n, ign, n))
            frees.append(("c_%s" % n, "MPI_STATUSES_IGNORE"))
            cargs.append("c_%s" % n)
            done = "*outcount" if c.arg("outcount") else "*count"
            post.append("if (c_%s != MPI_STATUSES_IGNORE && (%s) != MPI_UNDEFINED)\n"
                        "\t\tfor (i = 0; i < (%s); i++)\n"
                        "\t\t\t%s(&c_%s[i], %s%s);" %
                        (n, done, done, c2f_status, n,
                         "&" if f08 else "", "%s[i]" % n if f08 else
                         "%s + i * GLUE_F_STATUS_SIZE" % n))
        elif b in HANDLES and a.is_array():
            h = HANDLES[b]
            fparams.append("MPI_Fint *%s" % n)
            if b == "MPI_Request":
                size = "*count"
            else:
                size = "glue_f_peers(PMPI_Comm_f2c(*comm), %d, %d)" % (
                    c.name.startswith("Neighbor_"), n.startswith("send"))
            pre.append("int n_%s = %s;" % (n, size))
            pre.append("%s *c_%s = glue_f_alloc(n_%s, sizeof(%s), &rc);" %
                       (b, n, n, b))
            pre.append("for (i = 0; c_%s && i < n_%s; i++)\n"
                       "\t\tc_%s[i] = PMPI_%s_f2c(%s[i]);" % (n, n, n, h, n))
            frees.append(("c_%s" % n, None))
            cargs.append("c_%s" % n)
            if "const" not in a.type:
                post.append("for (i = 0; c_%s && i < n_%s; i++)\n"
                            "\t\t%s[i] = PMPI_%s_c2f(c_%s[i]);" %
                            (n, n, n, h, n))
        elif b in HANDLES and "*" in a.type:
            h = HANDLES[b]
            fparams.append("MPI_Fint *%s" % n)
            pre.append("%s c_%s = PMPI_%s_f2c(*%s);" % (b, n, h, n))
            cargs.append("&c_%s" % n)
            post.append("*%s = PMPI_%s_c2f(c_%s);" % (n, h, n))
        elif b in HANDLES:
            fparams.append("MPI_Fint *%s" % n)
            cargs.append("PMPI_%s_f2c(*%s)" % (HANDLES[b], n))
        elif b == "int" and "*" not in a.type and not a.is_array():
            fparams.append("MPI_Fint *%s" % n)
            cargs.append("*%s" % n)
        elif b in ("int", "MPI_Aint"):
            fparams.append("%s *%s" % ("MPI_Fint" if b == "int" else b, n))
            cargs.append(n)
            if n == "index":
                post.append("if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED)"
                            "\n\t\t++*index;")
            elif n == "indices":
                post.append("if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)"
                            "\n\t\tfor (i = 0; i < *outcount; i++)\n"
                            "\t\t\tindices[i]++;")
        else:
            die("%s: no Fortran conversion for %s" % (c.name, a.type))
    fparams.append("MPI_Fint *ierr")
    fn = "f%s_%s" % ("08" if f08 else "", c.name)
    out = ["static void %s(%s)" % (fn, ", ".join(fparams)), "{",
           "\tint rc = MPI_SUCCESS, i = 0;"]
    out += ["\t" + p for p in pre]
    if frees:
        out += ["\tif (rc != MPI_SUCCESS)", "\t\tgoto out;"]
    out += ["\t(void)i;",
            "\trc = glue_%s(%s);" % (c.name, ", ".join(cargs))]
    out += ["\t" + p for p in post]
    if frees:
        out.append("out:")
    for f, ignore in frees:
        out += ["\tif (%s != %s)" % (f, ignore), "\t\tfree(%s);" % f] \
            if ignore else ["\tfree(%s);" % f]
    out += ["\tif (ierr)", "\t\t*ierr = rc;", "}"]
    return fn, "\n".join(out)


def fortran_chain(c, f08):
    """Init, Init_thread, Finalize: MPI's own Fortran entry, then ours."""
    fargs = [a for a in c.args if a.name not in ("argc", "argv")]
    fparams = ["MPI_Fint *%s" % a.name for a in fargs] + ["MPI_Fint *ierr"]
    fn = "f%s_%s" % ("08" if f08 else "", c.name)
    out = ["static void %s_next(const char *sym%s)" %
           (fn, "".join(", " + p for p in fparams)), "{",
           "\tvoid (*next)(%s) = glue_f_next(sym);" %
           ", ".join("MPI_Fint *" for _ in fparams),
           "\tMPI_Fint rc = MPI_ERR_INTERN;", ""]
    if c.name == "Finalize":
        out.append("\tglue_finalize();")
    out += ["\tif (next)",
            "\t\tnext(%s&rc);" % "".join(a.name + ", " for a in fargs)]
    if c.name != "Finalize":
        out += ["\tif (rc == MPI_SUCCESS)", "\t\tglue_setup();"]
    out += ["\tif (ierr)", "\t\t*ierr = rc;", "}"]
    return fn, fparams, fargs, "\n".join(out)


def converts_arrays_for_later(c):
    """A call that starts an operation (it returns a request) and takes
    arrays of handles: MPI may read the converted C arrays until the
    request completes, after the entry has freed them.  The MPI's own
    entry keeps them alive; the glue leaves such calls to it."""
    return c.arg("request") and any(
        a.base() in HANDLES and a.base() != "MPI_Request" and a.is_array()
        for a in c.args)


def fortran(calls, libs, protos):
    """Entry points: bindings that reach PMPI_<name> and not MPI_<name>."""
    out, entries = [], []
    for c in calls:
        if converts_arrays_for_later(c):
            continue
        low = "mpi_" + c.name.lower()
        for path, (defs, refs) in libs.items():
            if "PMPI_" + c.name not in refs:
                continue
            if "MPI_" + c.name not in refs:
                # every binding of this library calls PMPI_ directly
                # (Open MPI: mpif.h and use mpi, and use mpi_f08 through
                # its ompi_*_f functions)
                kinds = [(False, [s for s in (low + "_", low, low + "__",
                                              low.upper(),
                                              "o" + low + "_f")
                                  if s in defs])]
            else:
                # the library calls MPI_ too: its other binding, use
                # mpi_f08 (MPICH), calls PMPI_ for calls without a buffer
                kinds = [(True, [s for s in (low + "_f08_",) if s in defs])]
            for f08, syms in kinds:
                if not syms:
                    continue
                if f08 and ("MPI_Status_c2f08" not in protos or
                            any(a.base() == "void" for a in c.args)):
                    continue
                entries.append((c, f08, syms, os.path.basename(path)))
    seen = set()
    for c, f08, syms, lib in entries:
        if (c.name, f08) in seen:
            continue
        seen.add((c.name, f08))
        out.append("/* %s: %s of %s */" % (c.name, ", ".join(syms), lib))
        if c.name in ("Init", "Init_thread", "Finalize"):
            fn, fparams, fargs, body = fortran_chain(c, f08)
            out.append(body)
            for s in syms:
                out += ["void %s(%s);" % (s, ", ".join(fparams)),
                        "void %s(%s)" % (s, ", ".join(fparams)), "{",
                        "\t%s_next(\"%s\"%s);" %
                        (fn, s, "".join(", " + a.name for a in fargs) +
                         ", ierr"), "}"]
        else:
            fn, body = fortran_body(c, f08)
            out.append(body)
            proto = body.split("\n")[0].replace("static void %s(" % fn, "")
            for s in syms:
                out.append("void %s(%s __attribute__((alias(\"%s\")));" %
                           (s, proto[:-1] + ")", fn))
        out.append("")
    return out, sorted({(c.name, f08, tuple(s)) for c, f08, s, _ in entries})


def pmpi(head, exported):
    """Each C entry point of the glue, exported twice, and its way on.

    MPI_X: the program's call.  When the next object defining MPI_X is
    not the MPI but a PMPI tool (preloaded after the glue, or linked to
    the program), that tool's MPI_X, which comes back through PMPI_X;
    else the glue's logic, glue_X.
    PMPI_X: a PMPI tool above the glue calls it for the real work:
    glue_X.  Called from the MPI's own code (MPI calls PMPI_ names to
    reach itself, past the tools), the MPI's, untouched.
    __wrap_PMPI_X: the glue's own calls of PMPI_X (ld --wrap), the next
    object's PMPI_X: the MPI's."""
    out = [head, '#include "glue.h"', "", "/* ld --wrap: the glue's own "
           "calls of these PMPI_ names come here. */",
           "#pragma GCC visibility push(hidden)"]
    out += ["int __wrap_PMPI_%s(%s);" %
            (n, ", ".join(a.decl() for a in args) or "void")
            for n, args in exported]
    out += ["#pragma GCC visibility pop", ""]
    opts = []
    for name, args in exported:
        params = ", ".join(a.decl() for a in args) or "void"
        fn = "int (*f)(%s)" % params
        out += ["int __wrap_PMPI_%s(%s)" % (name, params), "{",
                "\tstatic void *next;",
                "\t%s = glue_next(&next, \"PMPI_%s\");" % (fn, name), "",
                "\treturn f(%s);" % call_args(args), "}", "",
                "int MPI_%s(%s)" % (name, params), "{",
                "\tstatic void *below;",
                "\t%s = glue_below(&below, \"MPI_%s\");" % (fn, name), "",
                "\tif (f)", "\t\treturn f(%s);" % call_args(args),
                "\treturn glue_%s(%s);" % (name, call_args(args)), "}", "",
                "int PMPI_%s(%s)" % (name, params), "{",
                "\tif (glue_from_mpi(__builtin_return_address(0))) {",
                "\t\tglue_count_internal();",
                "\t\treturn __wrap_PMPI_%s(%s);" % (name, call_args(args)),
                "\t}",
                "\treturn glue_%s(%s);" % (name, call_args(args)), "}", ""]
        opts.append("--wrap=PMPI_%s" % name)
    return out, opts


def main():
    if len(sys.argv) != 4:
        die("usage: gen.py MPI TABLE OUTDIR")
    mpi, table, outdir = sys.argv[1:]
    calls = read_table(table)
    protos = read_header(mpi)
    head = "/* Generated by mpi-glue/gen.py from calls.def for %s. */\n" % mpi

    h = [head, "#ifndef COSCHED_MPI_CALLS_H", "#define COSCHED_MPI_CALLS_H",
         "", "enum glue_call {"]
    h += ["\tGC_%s," % c.name for c in calls]
    h += ["\tGC_NR", "};", ""]
    protos_at = len(h)
    if "MPI_Status_c2f08" in protos:
        h += ["/* mpi.h has MPI-4's TYPE(MPI_Status) for C. */",
              "#define GLUE_HAVE_F08_STATUS 1", ""]
    h += ["#endif"]

    cc = [head, '#include "glue.h"', "",
          "uint64_t glue_calls[GC_NR];",
          "const char *const glue_call_name[GC_NR] = {"]
    cc += ['\t[GC_%s] = "%s",' % (c.name, c.name) for c in calls]
    cc += ["};", ""]
    large = []
    exported = []       # (name, args): glue_NAME, MPI_NAME, PMPI_NAME
    for c in calls:
        check_proto(c, protos)
        w = c_wrapper(c, "", c.args, protos)
        if w:
            cc += [w, ""]
        elif c.how in ("p2p", "coll"):
            die("mpi.h lacks the non-blocking form of MPI_%s" % c.name)
        if w or c.how == "own":
            exported.append((c.name, c.args))
        lc = large_count_args(c, protos) \
            if c.how in ("p2p", "coll", "prog") else None
        w = lc and c_wrapper(c, "_c", lc, protos)
        if w:
            cc += [w, ""]
            large.append(c.name)
            exported.append((c.name + "_c", lc))
    how = {c.name: c.how for c in calls}
    starts = set()
    for n, _ in exported:
        base, c_form = (n[:-2], "_c") if n.endswith("_c") else (n, "")
        if how.get(base) in ("p2p", "coll"):
            starts.add(start_name(base) + c_form)
    unwrapped = starts - set(n for n, _ in exported)
    if unwrapped:
        die("no prog line for %s, the start of a p2p or coll wrapper" %
            ", ".join(sorted(unwrapped)))
    h[protos_at:protos_at] = \
        ["/* The glue's logic of MPI_NAME (calls.c, init.c, p2p.c). */"] + \
        ["int glue_%s(%s) __attribute__((visibility(\"hidden\")));" %
         (n, ", ".join(a.decl() for a in args) or "void")
         for n, args in exported] + [""]
    pc, opts = pmpi(head, exported)

    libs = fortran_symbols(mpi)
    fbody, fentries = fortran(calls, libs, protos)
    fc = [head, '#include "glue.h"', '#include "fortran.h"', "",
          "#include <stdlib.h>", ""] + fbody

    os.makedirs(outdir, exist_ok=True)
    for name, lines in (("calls.h", h), ("calls.c", cc),
                        ("fentries.c", fc), ("pmpi.c", pc),
                        ("link.opts", opts)):
        tmp = os.path.join(outdir, name + ".tmp")
        with open(tmp, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(tmp, os.path.join(outdir, name))
    with open(os.path.join(outdir, "summary.txt"), "w") as f:
        f.write("large-count _c wrappers: %s\n" % (" ".join(large) or "none"))
        for name, f08, syms in fentries:
            f.write("fortran %s: %s\n" % (name, " ".join(syms)))
        f.write("fortran left to the MPI's own entries: %s\n" % " ".join(
            c.name for c in calls if converts_arrays_for_later(c)))


if __name__ == "__main__":
    main()
