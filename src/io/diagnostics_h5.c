/* The diagnostics at setup (src/bte/diagnostics.c) as attributes of a /diagnostics group: the
   same in every output file (dynamics, transport, high field; docs/diagnostics.md). */
#include <bte/private/diagnostics.h>
#include <bte/private/h5util.h>
#include <stdio.h>
#include <string.h>

int BTEDiagnosticsWriteH5(hid_t loc, const BTEDiagnostics *d, const char why[], char err[], size_t len)
{
  BTEH5Status st;
  hid_t       g;
  char        warn[128] = "";

  memset(&st, 0, sizeof(st));
  g = H5Gcreate2(loc, "diagnostics", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) {
    snprintf(err, len, "cannot create group /diagnostics");
    return -1;
  }
  BTEH5WriteAttrInt(g, "computed", d->computed ? 1 : 0, &st);
  if (!d->computed) BTEH5WriteAttrString(g, "reason", why ? why : "", &st);
  else {
    if (d->pieces > 1) strcat(warn, "channel_graph ");
    if (d->defect > BTE_DIAG_DEFECT_MAX) strcat(warn, "equilibrium_defect ");
    if (d->relax_temperature != d->relax_temperature || PetscAbsReal(d->relax_temperature / d->temperature - 1) > BTE_DIAG_TRELAX_MAX) strcat(warn, "relaxation_temperature ");
    if (d->edge_share > BTE_DIAG_EDGE_MAX) strcat(warn, "edge_share ");
    PetscReal vs = PetscSqrtReal(d->relax_velocity[0] * d->relax_velocity[0] + d->relax_velocity[1] * d->relax_velocity[1] + d->relax_velocity[2] * d->relax_velocity[2]);
    if (d->thermal_speed > 0 && vs / d->thermal_speed > BTE_DIAG_VREL_MAX) strcat(warn, "zero_field_velocity ");
    if (d->thermal_states < BTE_DIAG_SAMPLING_MIN) strcat(warn, "thermal_states ");
    if (warn[0]) warn[strlen(warn) - 1] = 0;
    BTEH5WriteAttrString(g, "description", "at the lattice temperature, with Fermi-Dirac f0 (mu = e_min - 20 kT, nondegenerate): equilibrium_defect = sum_i |I_i[f0]| / sum_i Gamma_i f0_i; relaxation_temperature: the Fermi-Dirac temperature with the mean energy of the stationary state that f0 relaxes to (on the largest piece of the channel graph); edge_share: carriers of f0 within edge_width of the window's top / all; zero_field_velocity: |mean velocity| of that stationary state, against thermal_speed, the mean speed of f0; thermal_states: (sum_i f0_i)^2 / sum_i f0_i^2, the states the thermal distribution sits on (docs/diagnostics.md)", &st);
    BTEH5WriteAttrReal(g, "temperature", d->temperature, "K", &st);
    BTEH5WriteAttrString(g, "delta", BTEDeltas[d->delta], &st);
    BTEH5WriteAttrInt(g, "channel_graph_pieces", d->pieces, &st);
    BTEH5WriteAttrInt(g, "states_outside_largest_piece", d->states_cut, &st);
    BTEH5WriteAttrReal(g, "equilibrium_defect", d->defect, "1", &st);
    BTEH5WriteAttrReal(g, "relaxation_temperature", d->relax_temperature, "K", &st);
    BTEH5WriteAttrReal(g, "edge_share", d->edge_share, "1", &st);
    BTEH5WriteAttrReal(g, "edge_width", d->edge_width, "eV", &st);
    BTEH5WriteAttrReal(g, "zero_field_velocity", vs, "cm/s", &st);
    BTEH5WriteAttrReal(g, "thermal_speed", d->thermal_speed, "cm/s", &st);
    BTEH5WriteAttrReal(g, "zero_field_velocity_max", BTE_DIAG_VREL_MAX, "1", &st);
    BTEH5WriteAttrReal(g, "equilibrium_defect_max", BTE_DIAG_DEFECT_MAX, "1", &st);
    BTEH5WriteAttrReal(g, "relaxation_temperature_max", BTE_DIAG_TRELAX_MAX, "1", &st);
    BTEH5WriteAttrReal(g, "edge_share_max", BTE_DIAG_EDGE_MAX, "1", &st);
    BTEH5WriteAttrReal(g, "thermal_states", d->thermal_states, "1", &st);
    BTEH5WriteAttrReal(g, "thermal_states_min", BTE_DIAG_SAMPLING_MIN, "1", &st);
    BTEH5WriteAttrString(g, "warnings", warn, &st);
  }
  H5Gclose(g);
  if (st.bad) {
    snprintf(err, len, "/diagnostics: %s", st.msg);
    return -1;
  }
  return 0;
}
