"""What it costs: power sources (sources/, one module per sensor family), the sampler thread,
energy integration and attribution to each step's phases, idle baselines, host readings and
the device snapshot recorded with every run."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "attribution": ("MeteredSink", "PHASES", "phase_joules", "sum_joules", "task_energy"),
    "baseline": ("Baseline", "NO_TOTAL", "measure_baseline", "net_energy", "parse_duration"),
    "device": ("AMX_WARNING", "FLAGS_OF_INTEREST", "cpuinfo", "device_snapshot", "has_amx"),
    "energy": ("DEFAULT_MAX_GAP_NS", "EnergyCounter", "NO_SOURCE", "PowerSource",
               "attribute_energy", "counter_delta", "integrate_power", "is_energy_counter",
               "read_source"),
    "host_state": ("HostReader", "PEAK_RSS_LIFETIME", "peak_rss_bytes", "reset_peak_rss"),
    "meter_settings": ("MeterConfig",),
    "cpu_load": ("HostCpuReader", "PROC_STAT", "parse_cpu_line", "phase_load"),
    "sample": ("Sample",),
    "sampler": ("Sampler",),
})
