#!/usr/bin/python3
"""gen_wrappers.py — generates the runtime's C MPI wrappers and the list of
rules from include/scalana/mpi_calls.def (the one table of MPI calls).

Every wrapper has the same shape: pass through when the runtime is off or
re-entered -> fill the call's arguments by role -> rt_call_enter (timestamp,
calling context) -> PMPI_ -> rt_call_exit (charge by rule).  The generator
knows nothing about individual calls; everything comes from the table.

usage: gen_wrappers.py mpi_calls.def OUT_DIR
writes OUT_DIR/rt_wrappers.c, OUT_DIR/rt_fortran_wrappers.c and OUT_DIR/rt_rules.h"""
import os
import re
import sys

LINE = re.compile(r'^SCALANA_MPI_CALL\(\s*(\d+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*"([^"]*)"\s*,\s*"([^"]*)"\s*,\s*"([^"]*)"\s*\)\s*$')

# Roles the runtime reads and the struct rt_args field each one fills.
# (Roles for documentation only — displacements — are accepted and ignored.)
SCALAR_ROLES = {"sbuf", "rbuf", "scount", "rcount", "stype", "rtype", "scounts", "rcounts",
                "stypes", "rtypes", "peer", "tag", "speer", "stag", "rpeer", "rtag", "root",
                "target", "comm", "newcomm", "group", "newgroup", "request", "requests", "nreq",
                "status", "statuses", "index", "indices", "outcount", "flag", "win", "file",
                "message"}
IGNORED_ROLES = {"sdispls", "rdispls"}
POINTER_VARIANT = {"win": "winp", "file": "filep"}  # role given as MPI_Win * / MPI_File *


def parse(path):
    calls = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.strip()
            if not line.startswith("SCALANA_MPI_CALL("):
                continue
            m = LINE.match(line)
            if not m:
                sys.exit(f"{path}:{no}: cannot parse: {line}")
            code, name, cls, flags, params, roles = m.groups()
            flags = flags.split()
            rule = "none"
            for fl in flags:
                if fl.startswith("rule="):
                    rule = fl[5:]
            plist = []
            if params.strip() and params.strip() != "void":
                for p in split_params(params):
                    if p.strip() == "...":
                        plist.append(("...", "...", "..."))
                        continue
                    pm = re.match(r'^(.*?)(\w+)\s*((?:\[[^\]]*\])*)$', p.strip())
                    if not pm:
                        sys.exit(f"{path}:{no}: cannot parse parameter '{p}'")
                    plist.append((p.strip(), pm.group(2), pm.group(1).strip() + pm.group(3)))
            rmap = {}
            for r in roles.split():
                k, _, v = r.partition("=")
                if k not in SCALAR_ROLES and k not in IGNORED_ROLES:
                    sys.exit(f"{path}:{no}: unknown role '{k}'")
                if v not in [p[1] for p in plist]:
                    sys.exit(f"{path}:{no}: role {k} names no parameter '{v}'")
                rmap[k] = v
            calls.append(dict(code=int(code), name=name, cls=cls, flags=flags, rule=rule,
                              params=plist, roles=rmap, raw=params))
    return calls


def split_params(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch in "[("
        depth -= ch in "])"
        cur += ch
    if cur.strip():
        out.append(cur)
    return out


def wrapper(c):
    name, params = c["name"], c["params"]
    args = ", ".join(p[1] for p in params)
    ptype = {p[1]: p[2] for p in params}
    roles = c["roles"]
    rolemask = " | ".join(f"RT_ROLE_{r.upper()}" for r in roles if r in SCALAR_ROLES) or "0"
    flags = []
    if "nonblocking" in c["flags"]:
        flags.append("RT_CALL_NONBLOCKING")
    if "persistent" in c["flags"]:
        flags.append("RT_CALL_PERSISTENT")
    flags = " | ".join(flags) or "0"
    o = []
    o.append(f"/* MPI_{name}: code {c['code']}, class {c['cls']}, rule {c['rule']} */")
    o.append(f"RT_EXPORT int MPI_{name}({c['raw']})")
    o.append("{")
    o.append("    if (!rt_wrap_enabled())")
    o.append(f"        return PMPI_{name}({args});")
    o.append(f"    struct rt_call c_ = {{.op = {c['code']}, .rule = RT_RULE_{c['rule'].upper()}, "
             f".flags = {flags}, .roles = {rolemask}}};")
    for role, param in roles.items():
        if role in IGNORED_ROLES:
            continue
        field = role
        if role in POINTER_VARIANT and "*" in ptype[param]:
            field = POINTER_VARIANT[role]
        if role == "status":
            o.append(f"    MPI_Status st_;")
            o.append(f"    if ({param} == MPI_STATUS_IGNORE)")
            o.append(f"        {param} = &st_;")
        if role == "statuses":
            n = roles["nreq"]
            o.append(f"    if ({param} == MPI_STATUSES_IGNORE)")
            o.append(f"        {param} = rt_scratch_statuses(&c_, {n});")
        if role == "requests":
            continue  # after nreq below
        if role == "request" and "*" not in ptype[param]:
            # MPI_Request_get_status takes the request by value
            o.append(f"    c_.a.request = &{param};")
            continue
        o.append(f"    c_.a.{field} = {param};")
    if "requests" in roles:
        o.append(f"    c_.a.requests = {roles['requests']};")
    o.append("    rt_call_enter(&c_);")
    if c["rule"] == "waitall":
        o.append("    if (rt_opt.waitall_split && c_.a.statuses != MPI_STATUSES_IGNORE)")
        o.append(f"        c_.rc = rt_waitall_split(&c_);")
        o.append("    else")
        o.append(f"        c_.rc = PMPI_{name}({args});")
    else:
        o.append(f"    c_.rc = PMPI_{name}({args});")
    o.append("    rt_call_exit(&c_);")
    o.append("    return c_.rc;")
    o.append("}")
    return "\n".join(o)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    calls = parse(sys.argv[1])
    codes = [c["code"] for c in calls]
    if len(set(codes)) != len(codes):
        sys.exit("mpi_calls.def: a code is used twice")
    if codes != sorted(codes):
        sys.exit("mpi_calls.def: codes must ascend (mpi_ops.c searches by code)")
    os.makedirs(sys.argv[2], exist_ok=True)
    rules = sorted({c["rule"] for c in calls if "nowrap" not in c["flags"]} | {"none"})
    with open(os.path.join(sys.argv[2], "rt_rules.h"), "w") as f:
        f.write("/* rt_rules.h — generated by runtime/gen_wrappers.py from mpi_calls.def; do not edit. */\n")
        f.write("#ifndef SCALANA_RT_RULES_H\n#define SCALANA_RT_RULES_H\nenum rt_rule {\n")
        for i, r in enumerate(rules):
            f.write(f"    RT_RULE_{r.upper()} = {i},\n")
        f.write("};\n")
        roles = sorted(SCALAR_ROLES)
        for i, r in enumerate(roles):
            f.write(f"#define RT_ROLE_{r.upper()} (1ull << {i})\n")
        f.write("#endif\n")
    with open(os.path.join(sys.argv[2], "rt_wrappers.c"), "w") as f:
        f.write("/* rt_wrappers.c — generated by runtime/gen_wrappers.py from\n"
                " * include/scalana/mpi_calls.def; do not edit.  One wrapper per measured call. */\n")
        f.write('#include "rt_mpi.h"\n\n')
        n = 0
        for c in calls:
            if "nowrap" in c["flags"] or "manual" in c["flags"]:
                continue
            f.write(wrapper(c) + "\n\n")
            n += 1
        # Every entry point the runtime defines (C and the first Fortran
        # mangling), for rt_shadow.c: which of them resolve elsewhere.
        names = [f"MPI_{c['name']}" for c in calls if "nowrap" not in c["flags"]]
        names += [f"mpi_{c['name'].lower()}_" for c in calls
                  if not any(x in c["flags"] for x in ("nowrap", "manual", "nofortran"))]
        names += ["mpi_init_", "mpi_init_thread_", "mpi_finalize_"]
        f.write("const char *const rt_wrapped_names[] = {\n")
        for nm in names:
            f.write(f'    "{nm}",\n')
        f.write("};\n")
        f.write(f"const unsigned rt_wrapped_count = {len(names)};\n")
    nf = write_fortran(calls, sys.argv[2])
    print(f"gen_wrappers.py: {n} C wrappers, {nf} Fortran wrappers, {len(rules)} rules")



# ---- Fortran ------------------------------------------------------------------
# Every C parameter becomes a pointer in the Fortran bindings (mpif.h, use mpi,
# mpi_f08); handles are MPI_Fint.  Roles say how to convert for measuring.
F_MANGLINGS = [("{l}_", "p{l}_"), ("{l}__", "p{l}__"), ("{l}", "p{l}"), ("{u}", "P{u}"),
               ("{l}" + "@F08@", "p{l}" + "@F08@"), ("{l}" + "@F08B@", "p{l}" + "@F08B@")]


def f_param_type(ctype):
    t = ctype.replace("const", "").strip()
    if t.startswith("void"):
        return "void *"
    if "MPI_Aint" in t:
        return "MPI_Aint *"
    if "MPI_Offset" in t:
        return "MPI_Offset *"
    return "MPI_Fint *"


def f_wrapper(c):
    name, params, roles = c["name"], c["params"], c["roles"]
    byname = {p[1]: p for p in params}
    fparams = [(f_param_type(p[2]), p[1]) for p in params]
    decl = ", ".join(f"{t}{n}" if t.endswith("*") else f"{t} {n}" for t, n in fparams)
    decl = (decl + ", " if decl else "") + "MPI_Fint *ierr"
    names = ", ".join(n for _, n in fparams)
    fwd = dict((n, n) for _, n in fparams)
    tdef = ", ".join(t for t, _ in fparams)
    tdef = (tdef + ", " if tdef else "") + "MPI_Fint *"
    rolemask = " | ".join(f"RT_ROLE_{r.upper()}" for r in roles if r in SCALAR_ROLES) or "0"
    flags = ["RT_CALL_FORTRAN"]
    if "nonblocking" in c["flags"]:
        flags.append("RT_CALL_NONBLOCKING")
    if "persistent" in c["flags"]:
        flags.append("RT_CALL_PERSISTENT")
    pre, post = [], []
    for role, p in roles.items():
        if role in IGNORED_ROLES:
            continue
        ctype = byname[p][2]
        ptr = "*" in ctype.replace("[]", "*") if role in ("win", "file") else False
        if role in ("sbuf", "rbuf"):
            pre.append(f"c_.a.{role} = rt_f_in_place(v, {p}) ? MPI_IN_PLACE : {p};")
        elif role in ("scount", "rcount", "peer", "tag", "speer", "stag", "rpeer", "rtag", "root",
                      "target", "nreq"):
            pre.append(f"c_.a.{role} = (int)*{p};")
        elif role in ("stype", "rtype"):
            pre.append(f"c_.a.{role} = PMPI_Type_f2c(*{p});")
        elif role in ("scounts", "rcounts"):
            pre.append(f"c_.a.{role} = (const int *){p};")
        elif role in ("group", "newgroup"):
            pass  # groups are not measured
        elif role in ("stypes", "rtypes"):
            pass  # converted after the communicator is known (below)
        elif role == "comm":
            pre.append(f"c_.a.comm = PMPI_Comm_f2c(*{p});")
        elif role == "newcomm":
            pre.append(f"MPI_Comm nc_ = PMPI_Comm_f2c(*{p});")
            pre.append("c_.a.newcomm = &nc_;")
            pre.append(f"c_.f_newcomm = {p};")
            post.append(f"nc_ = PMPI_Comm_f2c(*{p});")
        elif role == "request":
            pre.append(f"MPI_Request rq_ = PMPI_Request_f2c(*{p});")
            pre.append("c_.a.request = &rq_;")
            post.append(f"rq_ = PMPI_Request_f2c(*{p});")
        elif role == "requests":
            n = roles["nreq"]
            pre.append(f"MPI_Request *rqs_ = rt_f_requests(*{n}, {p});")
            pre.append("c_.a.requests = rqs_;")
            pre.append("c_.a.nreq = rqs_ ? c_.a.nreq : 0;")
        elif role == "status":
            pre.append("MPI_Fint fst_[RT_F_STATUS_MAX];")
            pre.append("MPI_Status cst_;")
            pre.append(f"if (rt_f_status_ignored({p}))")
            pre.append(f"    {p} = fst_;")
            fwd[p] = p
            post.append(f"PMPI_Status_f2c({p}, &cst_);")
            pre.append("c_.a.status = &cst_;")
        elif role == "statuses":
            n = roles["nreq"]
            pre.append(f"if (rt_f_statuses_ignored({p}))")
            pre.append(f"    {p} = rt_f_status_scratch(*{n});")
            pre.append(f"MPI_Status *csts_ = {p} ? rt_scratch_statuses(&c_, *{n}) : MPI_STATUSES_IGNORE;")
            pre.append("c_.a.statuses = csts_;")
            post.append(f"if ({p} && csts_ != MPI_STATUSES_IGNORE)")
            post.append(f"    for (int i_ = 0; i_ < *{n}; i_++)")
            post.append(f"        PMPI_Status_f2c({p} + (size_t)i_ * RT_F_STATUS_SIZE, &csts_[i_]);")
        elif role == "index":
            pre.append("int ix_ = MPI_UNDEFINED;")
            pre.append("c_.a.index = &ix_;")
            post.append(f"ix_ = rt_f_index(v, c_.rule, *{p});")
        elif role == "indices":
            n = roles["nreq"]
            pre.append(f"int *ixs_ = rt_f_indices(*{n});")
            pre.append("c_.a.indices = ixs_;")
            post.append(f"if (ixs_ && *{roles['outcount']} != MPI_UNDEFINED)")
            post.append(f"    for (int i_ = 0; i_ < *{roles['outcount']}; i_++)")
            post.append(f"        ixs_[i_] = rt_f_index(v, c_.rule, {p}[i_]);")
        elif role in ("outcount", "flag"):
            pre.append(f"c_.a.{role} = (int *){p};")
        elif role == "win":
            if ptr:
                pre.append(f"MPI_Win w_ = PMPI_Win_f2c(*{p});")
                pre.append("c_.a.winp = &w_;")
                post.append(f"w_ = PMPI_Win_f2c(*{p});")
            else:
                pre.append(f"c_.a.win = PMPI_Win_f2c(*{p});")
        elif role == "file":
            if ptr:
                pre.append(f"MPI_File fh_ = PMPI_File_f2c(*{p});")
                pre.append("c_.a.filep = &fh_;")
                post.append(f"fh_ = PMPI_File_f2c(*{p});")
            else:
                pre.append(f"c_.a.file = PMPI_File_f2c(*{p});")
        elif role == "message":
            pre.append(f"MPI_Message m_ = PMPI_Message_f2c(*{p});")
            pre.append("c_.a.message = &m_;")
            post.append(f"m_ = PMPI_Message_f2c(*{p});")
        else:
            sys.exit(f"gen_wrappers.py: no Fortran conversion for role {role}")
    if "stypes" in roles or "rtypes" in roles:
        st = roles.get("stypes")
        rt = roles.get("rtypes")
        pre.append(f"rt_f_types(&c_, {st or 'NULL'}, {rt or 'NULL'});")
    lname = name.lower()
    o = [f"/* Fortran MPI_{name}: mpif.h, use mpi and mpi_f08 manglings */"]
    o.append(f"typedef void (*rt_f_{name}_fn)({tdef});")
    o.append(f"static void rt_f_{name}(int v, {decl})")
    o.append("{")
    o.append(f"    static void *real[RT_F_VARIANTS];")
    o.append(f'    rt_f_{name}_fn f = (rt_f_{name}_fn)rt_f_real(v, "{lname}", real);')
    o.append("    if (!f) {")
    o.append("        if (ierr)")
    o.append("            *ierr = MPI_ERR_INTERN;")
    o.append("        return;")
    o.append("    }")
    o.append("    if (!rt_wrap_enabled()) {")
    o.append(f"        f({names + ', ' if names else ''}ierr);")
    o.append("        return;")
    o.append("    }")
    o.append(f"    struct rt_call c_ = {{.op = {c['code']}, .rule = RT_RULE_{c['rule'].upper()}, "
             f".flags = {' | '.join(flags)}, .roles = {rolemask}}};")
    o += ["    " + s for s in pre]
    o.append("    rt_call_enter(&c_);")
    call = f"f({', '.join(fwd[n] for _, n in fparams) + ', ' if fparams else ''}ierr);"
    if c["rule"] == "waitall":
        # Completed in C through the Waitsome loop, handles converted back.
        n, rq, st = roles["nreq"], roles["requests"], roles["statuses"]
        # Not once errors can reach the application: then its own Fortran
        # Waitall (the library's Fortran statuses on error, rt_errh.c).
        o.append("    if (rt_opt.waitall_split && !rt_errors_visible && rqs_ && csts_ != MPI_STATUSES_IGNORE) {")
        o.append("        c_.rc = rt_waitall_split(&c_);")
        o.append(f"        rt_f_requests_back(*{n}, {rq}, rqs_, {st}, csts_);")
        o.append("        if (ierr)")
        o.append("            *ierr = c_.rc;")
        o.append("        rt_call_exit(&c_);")
        o.append("        return;")
        o.append("    }")
    o.append(f"    {call}")
    o.append("    c_.rc = ierr ? (int)*ierr : MPI_SUCCESS;")
    o += ["    " + s for s in post]
    o.append("    rt_call_exit(&c_);")
    o.append("}")
    for i, (ex, _) in enumerate(F_MANGLINGS):
        sym = ex.format(l="mpi_" + lname, u="MPI_" + name.upper())
        if "@F08@" in sym:
            sym = sym.replace("@F08@", "")
            o.append(f"RT_EXPORT void RT_F08_NAME({sym})({decl}) {{ rt_f_{name}({i}, {names + ', ' if names else ''}ierr); }}")
        elif "@F08B@" in sym:
            sym = sym.replace("@F08B@", "")
            o.append("#ifdef RT_F08B_NAME")
            o.append(f"RT_EXPORT void RT_F08B_NAME({sym})({decl}) {{ rt_f_{name}({i}, {names + ', ' if names else ''}ierr); }}")
            o.append("#endif")
        else:
            o.append(f"RT_EXPORT void {sym}({decl}) {{ rt_f_{name}({i}, {names + ', ' if names else ''}ierr); }}")
    return "\n".join(o)


def write_fortran(calls, outdir):
    with open(os.path.join(outdir, "rt_fortran_wrappers.c"), "w") as f:
        f.write("/* rt_fortran_wrappers.c — generated by runtime/gen_wrappers.py from\n"
                " * include/scalana/mpi_calls.def; do not edit.  Fortran entry points of every\n"
                " * measured call, forwarding to the library's own Fortran PMPI entry. */\n")
        f.write('#include "rt_fortran.h"\n\n')
        n = 0
        for c in calls:
            if any(x in c["flags"] for x in ("nowrap", "manual", "nofortran")):
                continue
            f.write(f_wrapper(c) + "\n\n")
            n += 1
    return n


if __name__ == "__main__":
    main()
