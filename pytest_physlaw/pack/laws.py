"""The model law pack: generic laws over a user's MJCF model, one module a kind of law, gathered here
as the module each model file collects (`pytest_physlaw.pack.ModelFile`).

- `solver`: Lesson 20.2's solver laws on the model (cap share, warm start, agreement, Newton).
- `proxies`: the coupling proxies of its bodies against MuJoCo's answer (held bodies: W_s).
- `energy`: passive forces dissipate; no energy gained in passive motion; a floating base's momentum in
  free flight.
- `inverse`: forward and inverse dynamics agree (mj_inverse returns the forces that produced qacc).
- `muscles`: a muscle only pulls, at any length, velocity and activation the runs reach.
- `gravcomp`: gravity compensation applies -gravcomp m g at each compensated body's centre of mass.
- `flex_balance`: a flex's elastic forces on its vertices sum to no force and no torque (Newton's third law).
- `flex_frame`: a 3D flex turned as a whole has no elastic force (frame indifference).
- `wrenches`: the constraint wrenches booked on bodies (cfrc_ext, what force sensors read) are the solver's.
- `transmission`: each actuator's moment arm is the derivative of its length (virtual work).
- `derivatives`: the velocity derivative an implicit integrator steps with is the actuator forces' (clamps included).
- `inertia`: masses and inertias are matter inside the robot (no tighter than osmium, no wider than the
  robot) and links are no denser than osmium.
- `mesh_mass`: a closed mesh weighs its density times the volume its triangles enclose (a probe compile of
  the mesh alone against the divergence theorem).
- `settled_pose`: the settled pose (sag, centre of mass, speed), the model's figures, the contacts carrying a
  resting base's weight and touching what they carry.
- `contact_depth`: resting contacts sink within their allowance; every pair is stiff enough to carry a body.
- `start_state`: the start (every keyframe) without overlaps and inside the joints' ranges.
- `ground`: something can collide; a floating base can touch the ground and stays above it.
- `contacts`, `resolution` (measures, no law): contact depths and the start's overlaps; the timestep's
  resolution over halvings. The law modules import these, not each other.
- `actuators`: the actuators can hold the starting pose against gravity; servo-held legged robots stand.
- `stepping`: no MuJoCo warning under seeded controls; the timestep resolves the motion and is stable
  for the stiffest mode.
- `readouts` (a package: `constraint`, `actuation`, `sensors`, read through `states.readout_states`): what each
  readout and sensor reports is what the step applied (qfrc_constraint, mj_contactForce, qfrc_actuator,
  actuator_force, sensordata), computed a second way from MuJoCo's own calls.
- `twofold` (a package): the same physics computed two ways MuJoCo offers (dense and sparse Jacobian, the
  actuators listed in another order, ...), at
  the states of `twofold.states`; the table: docs/second-computations.md.
- `sequences` (a package): the API sequences users run between loading and stepping (a compiled model edited and
  saved, a spec edited and compiled again, a tool attached, a geom resized), against the same model built in one go.
- `routes` (a package: the laws, `common`, `reference` for MuJoCo C's side, one module per route, `warp`, `mjx`): with
  `--physlaw-route`, the model on MuJoCo Warp and MJX beside MuJoCo C (not collected without).

The scene is run as the model says: its own timestep, integrator and solver options, from its starting
keyframe (ini `physlaw_model_keyframe`; keyframe 0, else qpos0), over the horizon (the shorter of ini
`physlaw_model_seconds` and `physlaw_model_steps` timesteps). Each case id starts with the model's path
relative to the rootdir; body laws add the body's name.
"""

from pytest_physlaw.pack.actuators import (  # noqa: F401
    test_actuators_can_hold_the_start_pose,
    test_servos_hold_a_standing_robot_up,
    test_servo_sag_stays_off_the_limits,
)
from pytest_physlaw.pack.contact_depth import (  # noqa: F401
    test_contacts_are_stiff_enough_to_carry_a_body,
    test_resting_contacts_sink_less_than_the_geoms,
)
from pytest_physlaw.pack.derivatives import test_velocity_derivative_is_the_actuator_forces  # noqa: F401
from pytest_physlaw.pack.energy import (  # noqa: F401
    test_floating_base_keeps_its_momentum,
    test_passive_forces_dissipate,
    test_passive_motion_gains_no_energy,
)
from pytest_physlaw.pack.flex_balance import test_flex_forces_are_internal  # noqa: F401
from pytest_physlaw.pack.flex_frame import test_flex_forces_vanish_under_rigid_motion  # noqa: F401
from pytest_physlaw.pack.flex_material import test_flex_elasticity_is_its_material  # noqa: F401
from pytest_physlaw.pack.fixtures import (  # noqa: F401
    bodies,
    driven,
    exercised,
    horizon,
    linearized,
    any_pack_model,
    pack_model,
    pytest_generate_tests,
    reached,
    record_coverage,
    settings,
    settled,
    settled_half_step,
    settled_nudged,
)
from pytest_physlaw.pack.ground import (  # noqa: F401
    test_floating_bases_can_touch_the_ground,
    test_floating_bases_stay_above_the_ground,
    test_something_can_collide,
)
from pytest_physlaw.pack.gravcomp import test_gravcomp_lifts_the_compensated_weight  # noqa: F401
from pytest_physlaw.pack.inertia import test_inertia_is_matter_within_the_robot, test_links_are_no_denser_than_osmium  # noqa: F401
from pytest_physlaw.pack.mesh_mass import test_mesh_mass_is_density_times_volume  # noqa: F401
from pytest_physlaw.pack.inverse import test_inverse_dynamics_returns_the_forces  # noqa: F401
from pytest_physlaw.pack.muscles import test_muscles_only_pull  # noqa: F401
from pytest_physlaw.pack.proxies import test_scalar_proxy_error_along_the_axis, test_tensor_proxy_answers_like_the_body  # noqa: F401
from pytest_physlaw.pack.readouts.actuation import (  # noqa: F401
    test_actuator_force_is_the_force_law,
    test_qfrc_actuator_is_moment_times_force,
)
from pytest_physlaw.pack.readouts.constraint import (  # noqa: F401
    test_contact_force_is_the_rows_forces,
    test_qfrc_constraint_is_the_rows_forces,
)
from pytest_physlaw.pack.readouts.sensors import test_sensors_read_what_they_name  # noqa: F401
from pytest_physlaw.pack.readouts.states import readout_states  # noqa: F401
from pytest_physlaw.pack.resolution import timestep_convergence  # noqa: F401
from pytest_physlaw.pack.routes import (  # noqa: F401  (collected only with --physlaw-route)
    route_converged,
    route_reference,
    route_references,
    route_run,
    test_one_route_step_agrees_with_c,
    test_route_iteration_cap,
    test_route_cost,
    test_route_runs_the_model,
    test_route_settles_as_c,
    test_route_trajectory_stays_in_c_envelope,
)
from pytest_physlaw.pack.routes.rays import test_route_rays_meet_what_c_meets  # noqa: F401
from pytest_physlaw.pack.routes.set_const import test_route_set_const_is_c_set_const  # noqa: F401
from pytest_physlaw.pack.routes.readouts import test_route_actuator_force_is_the_force_law  # noqa: F401
from pytest_physlaw.pack.settled_pose import (  # noqa: F401
    test_contacts_carry_a_resting_flex,
    test_contacts_carry_a_resting_floating_base,
    test_model_figures,
    test_resting_bodies_touch_what_carries_them,
    test_settled_pose,
)
from pytest_physlaw.pack.solver import (  # noqa: F401
    test_converged_solvers_agree_on_qacc,
    test_newton_never_stops_at_the_cap,
    test_solves_stop_below_the_iteration_cap,
    test_warmstart_saves_iterations,
)
from pytest_physlaw.pack.start_state import (  # noqa: F401
    test_start_state_is_not_interpenetrating,
    test_start_state_is_within_joint_ranges,
)
from pytest_physlaw.pack.stepping import (  # noqa: F401
    test_constraint_time_constants_are_resolved,
    test_no_mujoco_warning,
    test_timestep_is_stable_for_the_stiffest_mode,
    test_timestep_resolves_the_motion,
)
from pytest_physlaw.pack.twofold.clock import test_physics_ignores_the_clock  # noqa: F401
from pytest_physlaw.pack.twofold.collision import (  # noqa: F401
    test_deepest_contact_is_the_distance,
    test_overlapping_pairs_collide,
)
from pytest_physlaw.pack.twofold.contact_overlap import test_contact_depth_is_the_overlap  # noqa: F401
from pytest_physlaw.pack.twofold.contact_points import test_contact_points_lie_in_their_geoms  # noqa: F401
from pytest_physlaw.pack.twofold.contact_normal import test_contact_normal_is_least_overlap  # noqa: F401
from pytest_physlaw.pack.twofold.as_written import test_compiled_as_written  # noqa: F401
from pytest_physlaw.pack.twofold.constants import test_compiled_constants_are_the_mass_matrix  # noqa: F401
from pytest_physlaw.pack.twofold.fluid_units import test_fluid_forces_are_each_bodys_in_any_units  # noqa: F401
from pytest_physlaw.pack.twofold.flexcomp_place import test_flexcomps_are_placed_as_written  # noqa: F401
from pytest_physlaw.pack.twofold.forward_twice import test_forward_twice_is_forward_once  # noqa: F401
from pytest_physlaw.pack.twofold.frame_turn import test_physics_is_frame_indifferent  # noqa: F401
from pytest_physlaw.pack.twofold.held_controls import test_held_controls_are_the_controls  # noqa: F401
from pytest_physlaw.pack.twofold.ray_scale import test_rays_are_scale_free  # noqa: F401
from pytest_physlaw.pack.twofold.edits import test_edits_take_effect  # noqa: F401
from pytest_physlaw.pack.twofold.fused import test_fusing_static_bodies_keeps_the_dynamics  # noqa: F401
from pytest_physlaw.pack.twofold.geometry_sensors import (  # noqa: F401
    test_distance_sensors_span_their_geoms, test_rangefinders_read_the_first_surface)
from pytest_physlaw.pack.twofold.shortest_wrap import test_tendon_wraps_take_the_shortest_path  # noqa: F401
from pytest_physlaw.pack.twofold.integrator_order import test_rk4_is_fourth_order  # noqa: F401
from pytest_physlaw.pack.twofold.islands import test_islands_and_one_solve_agree  # noqa: F401
from pytest_physlaw.pack.twofold.jacobian import test_dense_and_sparse_jacobian_solve_alike  # noqa: F401
from pytest_physlaw.pack.twofold.mass import test_mass_matrix_and_its_factor_agree  # noqa: F401
from pytest_physlaw.pack.twofold.body_inertias import test_mass_matrix_is_its_bodies  # noqa: F401
from pytest_physlaw.pack.twofold.bias_force import test_bias_force_is_its_bodies  # noqa: F401
from pytest_physlaw.pack.twofold.residuals import test_constraint_residuals_change_as_their_jacobian_says  # noqa: F401
from pytest_physlaw.pack.twofold.jacobian_rates import test_jacobian_dot_is_the_jacobians_rate  # noqa: F401
from pytest_physlaw.pack.twofold.midphase import test_midphase_prunes_no_contact  # noqa: F401
from pytest_physlaw.pack.twofold.order import test_actuator_order_is_no_physics  # noqa: F401
from pytest_physlaw.pack.twofold.restored_state import test_a_restored_state_steps_as_the_original  # noqa: F401
from pytest_physlaw.pack.twofold.saved_xml import test_saved_xml_is_the_model  # noqa: F401
from pytest_physlaw.pack.twofold.subtree_wrench import test_force_sensors_read_the_subtrees_wrench  # noqa: F401
from pytest_physlaw.pack.twofold.split_step import test_split_step_is_the_step  # noqa: F401
from pytest_physlaw.pack.twofold.sleep_contacts import test_sleep_keeps_contacts  # noqa: F401
from pytest_physlaw.pack.twofold.sleep_readouts import test_sleep_changes_no_readout  # noqa: F401
from pytest_physlaw.pack.twofold.solvers import test_converged_solvers_agree_where_the_model_moves  # noqa: F401
from pytest_physlaw.pack.sequences.attach import test_attached_tool_keeps_the_model  # noqa: F401
from pytest_physlaw.pack.sequences.resize import test_resized_geoms_are_compiled_alike  # noqa: F401
from pytest_physlaw.pack.sequences.saved_edits import test_saved_model_keeps_its_edits  # noqa: F401
from pytest_physlaw.pack.sequences.scene_attach import test_model_attached_into_a_scene_is_the_model  # noqa: F401
from pytest_physlaw.pack.sequences.spec_edits import test_recompiled_spec_takes_its_edits  # noqa: F401
from pytest_physlaw.pack.twofold.states import twofold_states  # noqa: F401
from pytest_physlaw.pack.twofold.tendons import (  # noqa: F401
    test_tendon_lengths_change_as_their_jacobian_says,
    test_tendon_wraps_stay_outside_on_the_sidesites_side,
)
from pytest_physlaw.pack.twofold.transition_rates import test_transition_derivatives_are_the_steps_rates  # noqa: F401
from pytest_physlaw.pack.twofold.translation import test_contacts_see_no_common_translation  # noqa: F401
from pytest_physlaw.pack.twofold.velocities import test_body_velocities_are_the_poses_rates  # noqa: F401
from pytest_physlaw.pack.transmission import test_moment_arms_are_the_lengths_derivative  # noqa: F401
from pytest_physlaw.pack.site_transmission import test_site_transmission_is_the_relative_pose  # noqa: F401
from pytest_physlaw.pack.wrenches import test_reported_constraint_wrenches_are_the_applied_forces  # noqa: F401
