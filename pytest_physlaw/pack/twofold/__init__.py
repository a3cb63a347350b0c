"""Laws that compute the same physics two ways: at the model's own states, a quantity MuJoCo computes is
computed again by a second path MuJoCo also offers (the dense against the sparse constraint Jacobian, island
decomposition on against off, the step against the forward pass, the mass matrix against its inverse), and the
two agree to the second path's own error. A release that computes one thing wrong while the run stays
consistent with itself passes every law that reads one computation; only a second computation of the same
quantity sees it. The table of pairs, built and not built: docs/second-computations.md.

- `states`: the one fixture the room reads its states through (`twofold_states`).
- `jacobian`: dense against sparse constraint Jacobian (qacc, efc_force, iterations).
- `islands`: the constraint solve by islands against one solve of the whole model.
- `stepping`: the Euler step's velocity update against the forward pass's qacc.
- `mass`: `mj_mulM` against `mj_solveM` (M M^-1 = 1) and `mj_fullM`; `mj_rne` against qfrc_bias.
- `midphase`: the collision with the midphase against without it.
- `solvers`: the model's own solver against Newton, tight, at the most loaded states.
- `distance` (a measure): the geom pairs MuJoCo's collision filter admits, their contacts, and their distance by
  `mj_geomDistance` (`mujoco_versions.geom_distance`).
- `collision`: `mj_collision`'s contacts against `mj_geomDistance`: every admitted pair that overlaps has a contact,
  and the deepest contact's dist is the pair's signed distance.
- `rates` (a measurement, no law): a position quantity's rate along qvel by central differences; tendon paths.
- `residuals`: each equality row's residual changes as efc_J qvel says.
- `tendons`: each tendon's length changes as ten_J qvel says; wrapped paths stay outside, on the sidesite's side.
- `velocities`: each body's velocity as MuJoCo reports it (cvel) is its pose's rate along qvel.
- `split_step`: `mj_step1` then `mj_step2` step as `mj_step` does, sensors included.
- `jacobian_rates`: `mj_jacDot` at each body's centre of mass is the rate of that point's Jacobian along qvel.
- `fluid_units`: each body's fluid wrench is the body's alone, and the same in units where it measures about a metre
  and a kilogram.
- `transition_rates`: `mjd_transitionFD`'s derivatives by the controls are the same differences of `mj_step`.
- `forward_twice`: a second `mj_forward` on the state it computed gives the same physics.
- `order`: the actuators reordered give the same step.
- `fused`: a model that fuses its static bodies has the unfused model's mass matrix and bias force.
- `constants`: the constants `mj_setConst` stores at qpos0 are their definitions evaluated anew.
- `surfaces` (a measure): where a ray first meets a geom and how far a point lies from its surface, from the geom's
  own shape data.
- `geometry_sensors`: a rangefinder reads its ray's first surface; a distance sensor's segment spans its geoms.
- `contact_overlap`: a pair's deepest contact is as deep as its shapes overlap along the contact's normal.
- `contact_normal`: a pair's deepest contact points along the direction its shapes overlap least.
- `contact_points`: each contact's two points, half its distance either side of its position along its normal, lie
  in their geoms.
- `subtree_wrench`: a force or torque sensor reads the wrench the model cut free at its body needs (MuJoCo's
  dynamics of the cut model).
- `mjcf_text` (a measure): what an MJCF file writes for each element, defaults resolved, read from its text.
- `as_written`: a model compiles to what its MJCF writes.
- `body_inertias`: the mass matrix is the sum of its bodies' inertias through their Jacobians, plus armature.
- `edits`: a centre of mass, geom or site moved in the compiled model, then `mj_setConst`, is placed where the edit
  says.
- `integrator_order`: RK4's motion converges at the fourth order as the step halves.
- `sleep_contacts`: the model as written, sleep on: a sleeping tree keeps its contacts with what moves into it.
- `sleep_readouts`: the model as written, sleep on: where a tree sleeps, its energies and position and velocity
  sensors read as the awake model's at the same state.
- `bias_force`: the bias force is what the bodies need to move at constant joint velocities and hold against gravity.
"""
