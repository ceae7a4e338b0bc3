// What the benchmarks read from /proc: process trees, resident memory and CPU time. Linux only.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';

export const CLK_TCK = 100; // USER_HZ: /proc reports CPU time in these ticks on every Linux we run on

/** The fields of /proc/<pid>/stat after the command name, or of one thread's (…/task/<tid>/stat). */
export function statFields(pid, tid) {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
  } catch {
    return undefined;
  }
}

/** Direct children of a process, from /proc/<pid>/stat (field 4 is the parent pid). */
export function childPids(parent) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = statFields(entry);
    if (s && Number(s.fields[1]) === parent) pids.push(Number(entry));
  }
  return pids;
}

export function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resident memory of a process in KiB (VmRSS), or undefined when it is gone. */
export function rssKiB(pid) {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * utime + stime of a process, in seconds (fields 14 and 15 of /proc/<pid>/stat); with `tid`, of
 * that one thread only.
 */
export function cpuSeconds(pid, tid) {
  const s = statFields(pid, tid);
  return s ? (Number(s.fields[11]) + Number(s.fields[12])) / CLK_TCK : undefined;
}

export function pidsNamed(comm) {
  const pids = [];
  for (const entry of readdirSync('/proc')) if (/^\d+$/.test(entry) && statFields(entry)?.comm === comm) pids.push(Number(entry));
  return pids;
}

/** Busy and total CPU seconds of the whole machine, from the first line of /proc/stat. */
export function machineCpu() {
  const v = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: (total - v[3] - v[4]) / CLK_TCK, total: total / CLK_TCK };
}

/**
 * The processes the start script spawned, named after the entry of scripts/processes.mjs whose
 * directory is their working directory: [{ name, pid }].
 */
export function systemProcesses(root, startPid, list) {
  const rows = [];
  for (const pid of childPids(startPid)) {
    let name = `pid ${pid}`;
    try {
      const cwd = path.relative(root, readlinkSync(`/proc/${pid}/cwd`));
      // Two processes may share a directory (a service and its development providers): the entry tells them apart.
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      name = list.find((p) => p.dir === cwd && argv.includes(p.entry ?? 'dist/main.js'))?.name ?? cwd;
    } catch {
      // keep the pid as its name
    }
    rows.push({ name, pid });
  }
  return rows;
}

/**
 * CPU accounting by labelled groups of processes. `groups()` is called at every snapshot and
 * returns { label: [pid, …] }; this process is always counted as "load generator (bench)".
 */
export function cpuMeter(groups) {
  const snapshot = () => {
    const out = {};
    for (const [label, pids] of Object.entries(groups())) {
      out[label] = new Map(pids.map((pid) => [pid, cpuSeconds(pid)]).filter(([, v]) => v !== undefined));
    }
    const self = process.cpuUsage();
    return { at: performance.now(), machine: machineCpu(), bench: (self.user + self.system) / 1e6, groups: out };
  };
  /** CPU seconds each group spent between two snapshots; a process that started meanwhile counts from zero. */
  const delta = (before, after, requests) => {
    const wallSeconds = (after.at - before.at) / 1000;
    const seconds = { 'load generator (bench)': after.bench - before.bench };
    for (const [label, now] of Object.entries(after.groups)) {
      let sum = 0;
      for (const [pid, v] of now) sum += v - (before.groups[label]?.get(pid) ?? 0);
      seconds[label] = sum;
    }
    const busy = after.machine.busy - before.machine.busy;
    const ours = Object.values(seconds).reduce((a, b) => a + b, 0);
    const out = { wallSeconds, seconds, machineBusyCores: busy / wallSeconds, otherCores: Math.max(0, busy - ours) / wallSeconds };
    if (requests !== undefined) {
      out.requests = requests;
      out.microsPerRequest = Object.fromEntries(
        Object.entries(seconds).map(([label, sec]) => [label, requests ? (sec * 1e6) / requests : NaN]),
      );
    }
    return out;
  };
  return { snapshot, delta };
}
